/**
 * A pane's agent process found gone (a Codex TUI killed while its thread waits on it; the
 * app-server daemon still holds the rollout, docs/agents/codex.md): an ask it left open reads dead,
 * a turn without an ask or one the files moved past is left to the files. Pure: applyScreen.
 */
import {describe, expect, it} from 'vitest'

import type {Contribution} from '../../../src/core/ingest/adapter.js'
import {applyScreen, type ScreenObservation} from '../../../src/core/ingest/screen.js'
import {EMPTY_FACTS, type SessionFacts} from '../../../src/core/model/types.js'

const T = Date.parse('2026-12-01T10:00:00Z')
const gone = (o: Partial<ScreenObservation> = {}): Contribution => ({
  extra: {
    screen: {
      address: 'main:2.0',
      confirmedAt: null,
      gone: T,
      kind: 'approval',
      pane: '%2',
      pid: 4343,
      sig: 'approval:touch x',
      since: T - 20_000,
      startedAt: T - 60_000,
      text: 'touch x',
      via: 'cwd',
      ...o,
    },
  },
  facts: {},
  nativeId: 's',
})
// The daemon holds the rollout: its claim is alive; the rollout shows the escalated command waiting.
const daemon = {
  alive: true,
  exited: null,
  heartbeatAt: null,
  pid: 9000,
  source: {kind: 'process' as const, ref: '/proc/9000/fd'},
  status: null,
}
const asking: SessionFacts = {
  ...EMPTY_FACTS,
  approval: {at: T - 20_000, source: {kind: 'transcript', ref: 'r'}, text: 'touch x'},
  lastActivityAt: T - 20_000,
  messages: 1,
  process: daemon,
  sources: {approval: {kind: 'transcript', ref: 'r'}},
}

describe('applyScreen: the TUI that showed an ask is gone', () => {
  it('an approval nobody can answer any more reads dead (the process is the one the pane ran)', () => {
    const f = applyScreen(asking, [gone()])
    expect(f.approval).toBeNull()
    expect(f.process).toMatchObject({alive: false, exited: 'crash', pid: 4343})
    expect(f.sources.process?.kind).toBe('screen')
  })

  it('a turn with no ask goes on in the daemon: unchanged', () => {
    const working: SessionFacts = {...asking, approval: null, sources: {}}
    expect(applyScreen(working, [gone({kind: 'busy'})])).toEqual(working)
  })

  it('written to after the process went (the thread moved on), or settled: unchanged', () => {
    const moved = {...asking, lastActivityAt: T + 10_000}
    expect(applyScreen(moved, [gone()])).toEqual(moved)
    const settled = {...asking, approval: null, settled: true}
    expect(applyScreen(settled, [gone()])).toEqual(settled)
  })

  it('a live pane showing the session again outranks the old one gone', () => {
    const live: Contribution = {...gone({gone: undefined, kind: 'approval', pid: 5000, since: T + 5000})}
    const f = applyScreen(asking, [gone(), live])
    expect(f.approval).not.toBeNull()
    expect(f.process?.alive).toBe(true)
  })
})
