/**
 * A question on the pane while the agent's own state says working (a background session blocked
 * on a dialog keeps reporting busy): the screen wins, rule 4 reads needs_input/question, and its
 * note says what the registry said. Pure: applyScreen, then classifyWorkState.
 */
import {describe, expect, it} from 'vitest'

import type {Contribution} from '../../../src/core/ingest/adapter.js'
import {applyScreen, type ScreenObservation} from '../../../src/core/ingest/screen.js'
import {EMPTY_FACTS, EMPTY_RECORDS, type ProcessStatus, type SessionFacts} from '../../../src/core/model/types.js'
import {classifyWorkState} from '../../../src/core/model/work-state.js'

const T = Date.parse('2026-12-01T10:00:00Z')
const reading = (o: Partial<ScreenObservation>): Contribution => ({
  extra: {
    screen: {
      address: 'main:1.0',
      confirmedAt: null,
      kind: 'question',
      pane: '%3',
      pid: 4242,
      sig: 'question:Which colour?',
      since: T,
      startedAt: T - 60_000,
      text: 'Which colour?',
      via: 'pid',
      ...o,
    },
  },
  facts: {},
  nativeId: 's',
})
const busy = (status: ProcessStatus | null = 'working', lastActivityAt = T - 10_000): SessionFacts => ({
  ...EMPTY_FACTS,
  lastActivityAt,
  messages: 2,
  process: {alive: true, exited: null, heartbeatAt: T, pid: 4242, source: {kind: 'registry', ref: 'sessions/4242.json'}, status},
  sources: {},
  turnIndex: 1,
})
const classify = (f: SessionFacts) =>
  classifyWorkState({children: {asking: false, producing: false}, facts: f, records: EMPTY_RECORDS}, T + 5000)

describe('a question on screen while the registry says working', () => {
  it('the screen wins: needs_input/question, the note names both', () => {
    const f = applyScreen(busy(), [reading({})])

    expect(f.question).toMatchObject({source: {kind: 'screen'}, text: 'Which colour?'})
    expect(f.process).toMatchObject({source: {kind: 'registry'}, status: 'working'})
    const c = classify(f)
    expect(c).toMatchObject({reason: 'question', rule: 4, state: 'needs_input'})
    expect(c.chain.at(-1)?.note).toContain('the registry (sessions/4242.json) says working, the screen showing the ask wins')
  })

  it('a reading older than the files moving on is stale: the registry stands', () => {
    const f = applyScreen(busy('working', T + 60_000), [reading({})])

    expect(f.question).toBeNull()
    expect(classify(f).reason).toBe('producing')
  })

  it('a busy screen beside a working registry asks nothing', () => {
    expect(applyScreen(busy(), [reading({kind: 'busy', sig: 'busy', text: ''})]).question).toBeNull()
  })
})
