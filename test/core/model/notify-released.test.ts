/** A park's release pages the person (model/notify.ts): its own kind, sentence and the park's note. */
import {describe, expect, it} from 'vitest'

import {candidateOf, notifyKindOf, type NotifySubject, type NotifyTransition, planBurst} from '../../../src/core/model/notify.js'

const NOW = Date.parse('2026-12-01T12:00:00Z')
const subject = (o: Partial<NotifySubject> = {}): NotifySubject => ({
  agent: 'claude_code',
  ask: null,
  bucket: 'needs_input',
  id: 's1',
  isChild: false,
  mine: true,
  parkNote: 'review after the migration\nsecond line',
  quietAt: null,
  reason: 'settled',
  state: 'needs_input',
  title: 'Deploy the site',
  turn: 2,
  workingSince: null,
  ...o,
})
const released = (o: Partial<NotifyTransition> = {}): NotifyTransition => ({
  bucket: 'needs_input',
  event: 'transition',
  reason: 'park_released',
  seq: 10,
  to: 'needs_input',
  ts: NOW,
  ...o,
})

describe('a park release pages', () => {
  it('as its own kind, although the row keeps its classification reason', () => {
    expect(notifyKindOf(released(), subject())).toBe('released')
  })

  it('not for a subagent, a row outside my inbox, or a row that moved to another bucket since', () => {
    expect(notifyKindOf(released(), subject({isChild: true}))).toBeNull()
    expect(notifyKindOf(released(), subject({mine: false}))).toBeNull()
    expect(notifyKindOf(released(), subject({bucket: 'stashed'}))).toBeNull()
    expect(notifyKindOf(released({bucket: 'done'}), subject())).toBeNull()
  })

  it('the notification names it and carries the first line of the note', () => {
    const c = candidateOf(released(), subject(), new Set())!
    expect(c.askLine).toBe('review after the migration')
    const [n] = planBurst([c], {agentNames: {claude_code: 'Claude'}, done: 'soft', quiet: true})
    expect(n).toMatchObject({
      body: 'Deploy the site\nreview after the migration',
      kind: 'released',
      summary: 'Claude is back from its park',
      urgency: 'normal',
    })
  })
})
