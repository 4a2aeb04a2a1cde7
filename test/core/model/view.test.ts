/**
 * The one view predicate (src/core/model/view.ts): whose view a session is in, the recency
 * window that asks outlive, and the filters; the inbox and the feed differ only in the filters
 * they pass.
 */
import {describe, expect, it} from 'vitest'

import {inView, type ViewRow} from '../../../src/core/model/view.js'
import {block, facts, NOW, records} from './helpers.js'

const DAY_MS = 86_400_000

const ME = 'me@example.com'

function row(o: Partial<ViewRow> & {owners?: string[]; at?: number} = {}): ViewRow {
  const {at, owners, ...rest} = o
  return {
    agent: 'claude_code',
    bucket: 'needs_input',
    decision: null,
    facts: facts({lastActivityAt: at ?? NOW - 60_000}),
    firstSeenAt: NOW - DAY_MS * 30,
    labels: {},
    parentId: null,
    records: records({owners: owners ?? []}),
    runner: ME,
    state: 'needs_input',
    workingSince: null,
    ...rest,
  }
}

describe('inView', () => {
  it('my inbox: sessions I run within the window, owned ones always, assigned-away ones never', () => {
    expect(inView(row(), ME, NOW, {})).toBe(true)
    expect(inView(row({at: NOW - 8 * DAY_MS}), ME, NOW, {})).toBe(false)
    expect(inView(row({at: NOW - 8 * DAY_MS}), ME, NOW, {all: true})).toBe(true)
    expect(inView(row({at: NOW - 60 * DAY_MS, owners: [ME.toUpperCase()]}), ME, NOW, {})).toBe(true)
    expect(inView(row({owners: ['them@example.com']}), ME, NOW, {})).toBe(false)
    expect(inView(row({runner: 'them@example.com'}), ME, NOW, {})).toBe(false)
    // The team's view takes them all.
    expect(inView(row({owners: ['them@example.com']}), ME, NOW, {team: true})).toBe(true)
  })

  it('an ask outlives the inbox window but not the feed window', () => {
    const asking = row({at: NOW - 8 * DAY_MS, facts: {...facts({lastActivityAt: NOW - 8 * DAY_MS}), approval: block('Bash')}})
    expect(inView(asking, ME, NOW, {})).toBe(true)
    expect(inView(asking, ME, NOW, {recencyMs: 7 * DAY_MS, recentOnly: true, team: true})).toBe(false)
  })

  it('the filters: state, agent, folder, label, member, top level', () => {
    const r = row({facts: facts({cwd: '/src/app', lastActivityAt: NOW - 60_000}), labels: {[ME]: 'fleet'}})
    expect(inView(r, ME, NOW, {states: ['done']})).toBe(false)
    expect(inView(r, ME, NOW, {states: []})).toBe(true)
    expect(inView(r, ME, NOW, {agent: ['codex']})).toBe(false)
    expect(inView(r, ME, NOW, {cwd: '/src'})).toBe(true)
    expect(inView(r, ME, NOW, {cwd: '/sr'})).toBe(false)
    expect(inView(r, ME, NOW, {label: ['fleet']})).toBe(true)
    expect(inView(r, ME, NOW, {label: ['other']})).toBe(false)
    expect(inView(r, ME, NOW, {member: 'them@example.com', team: true})).toBe(false)
    expect(inView({...r, parentId: 'p'}, ME, NOW, {topLevel: true})).toBe(false)
  })
})
