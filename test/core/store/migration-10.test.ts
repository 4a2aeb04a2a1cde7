/**
 * Migration 10: `sessions.shown`, the part of each session's facts a listing reads
 * (src/core/store/shown-facts.ts), beside the facts. Whoever writes the facts (upsertFacts, the
 * migration over an older store, any other UPDATE), `shown` holds the same values: the facts
 * without the keys no listing reads, and only the sources a pane is read from. The big list
 * (src/core/store/listing-rows.ts) prints the same bytes from it as loadSessions' full rows.
 */
import Database from 'better-sqlite3'
import path from 'node:path'
import {describe, expect, it} from 'vitest'

import type {SessionFacts} from '../../../src/core/model/types.js'
import {streamListing} from '../../../src/lib/views/stream-listing.js'
import {buildListing} from '../../../src/lib/views/views.js'
import {UNSHOWN_KEYS} from '../../../src/core/store/shown-facts.js'
import {Store} from '../../../src/core/store/store.js'
import {NOW, settled, useStore} from './fixture.js'

const ME = 'me@example.com'
const s = useStore()

const SOURCES = {
  cwd: {at: NOW, kind: 'file', ref: '/home/me/.claude/projects/x/a.jsonl'},
  process: {at: NOW, kind: 'scan', ref: 'tmux %7 pid 4242'},
  title: {at: NOW, kind: 'screen', ref: 'tmux pane %3'},
} as unknown as SessionFacts['sources']

/** Facts with every key a listing never reads set to something, a pane source among others. */
const full = (over: Partial<SessionFacts> = {}): SessionFacts =>
  settled({
    lastAssistantText: 'All done.',
    lastPromptText: 'fix it',
    parseErrors: 2,
    queued: 1,
    sources: SOURCES,
    title: 'Fix \ud800 the parser', // a lone surrogate: stored escaped, read back the same
    turnStartedAt: NOW - 5000,
    turnTools: ['Edit', 'Bash'],
    ...over,
  })

const shownOf = (store: Store, id: string): Record<string, unknown> =>
  JSON.parse(store.q('SELECT shown FROM sessions WHERE id = ?').pluck().get(id) as string) as Record<string, unknown>

/** What `shown` must hold for these facts. */
function expected(facts: SessionFacts): Record<string, unknown> {
  const want: Record<string, unknown> = JSON.parse(JSON.stringify(facts)) as Record<string, unknown>
  for (const k of UNSHOWN_KEYS) delete want[k]
  want.sources = {process: SOURCES.process, title: SOURCES.title}
  return want
}

/** The streamed `--json --all` and the same listing built from loadSessions' full rows. */
function both(store: Store): {streamed: string; whole: string} {
  let streamed = ''
  streamListing(store, ME, NOW, {all: true}, (c) => (streamed += c))
  const whole = JSON.stringify(buildListing(store.loadSessions(), ME, NOW, {all: true}).listing, null, 2) + '\n'
  return {streamed, whole}
}

describe('migration 10: the facts a listing reads, beside the facts', () => {
  it('upsertFacts writes them: no settle-classifier inputs, only the sources a pane is read from', () => {
    const facts = full()
    const id = s.add('a1', facts)
    const shown = shownOf(s.store, id)
    expect(shown).toEqual(expected(facts))
    for (const k of UNSHOWN_KEYS) expect(shown).not.toHaveProperty(k)
    expect(shown.title).toBe('Fix \ud800 the parser')
    const {streamed, whole} = both(s.store)
    expect(streamed).toBe(whole)
    expect(JSON.parse(streamed).sessions[0].pane).toBe('%7')
  })

  it('a write of the facts by anything else is followed (triggers), and the listing stays the same bytes', () => {
    const id = s.add('a2', full())
    s.store
      .q(`UPDATE sessions SET facts = json_set(facts, '$.process', json('{"alive":true,"pid":4242,"exited":null}')) WHERE id = ?`)
      .run(id)
    expect(shownOf(s.store, id).process).toEqual({alive: true, exited: null, pid: 4242})
    // Only a key no listing reads changes: `shown` is left as it was, the facts change.
    s.store.q(`UPDATE sessions SET facts = json_set(facts, '$.lastAssistantText', 'more') WHERE id = ?`).run(id)
    expect(shownOf(s.store, id)).not.toHaveProperty('lastAssistantText')
    const {streamed, whole} = both(s.store)
    expect(streamed).toBe(whole)
    expect(JSON.parse(streamed).sessions[0].live).toBe(true)
  })

  it('an older store gets them from its facts when it is opened', () => {
    const v9 = new Store(path.join(s.dir, 'v9'))
    v9.close()
    // A store written at schema 9: the sessions as that cast wrote them (no shown column).
    const home = path.join(s.dir, 'v9')
    const db = new Database(path.join(home, 'cast.db'))
    db.exec(`
      DROP TRIGGER sessions_shown_insert;
      DROP TRIGGER sessions_shown_update;
      ALTER TABLE sessions DROP COLUMN shown;
      PRAGMA user_version = 9;
    `)
    const facts = full()
    db.prepare(
      `INSERT INTO sessions (id, agent, native_id, facts, cwd, title, last_activity_at, runner, device, first_seen_at, state, reason, rule, bucket)
       VALUES ('claude_code:b1', 'claude_code', 'b1', ?, '/src/app', 'Fix', ?, ?, 'box', ?, 'done', 'settled', 5, 'done')`,
    ).run(JSON.stringify(facts), NOW - 60_000, ME, NOW)
    db.close()
    const store = new Store(home)
    try {
      expect(store.q('PRAGMA user_version').pluck().get()).toBeGreaterThanOrEqual(10)
      expect(shownOf(store, 'claude_code:b1')).toEqual(expected(facts))
      const {streamed, whole} = both(store)
      expect(streamed).toBe(whole)
    } finally {
      store.close()
    }
  })
})
