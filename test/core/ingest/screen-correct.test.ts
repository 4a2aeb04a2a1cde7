/**
 * The screen corrects a dialog the files or hooks left open (issue 10: "the screen may correct a
 * registry waiting"; Gemini's approval ends when the tool runs, and no hook says so): a busy
 * screen, or a plain prompt seen twice, first seen after the dialog opened, closes it. A dialog
 * still on screen, or a reading older than the dialog, changes nothing. Pure: applyScreen.
 */
import {describe, expect, it} from 'vitest'

import type {Contribution} from '../../../src/core/ingest/adapter.js'
import {applyScreen, isScreenContribution, type ScreenObservation, screenObservationIn} from '../../../src/core/ingest/screen.js'
import {EMPTY_FACTS, type SessionFacts} from '../../../src/core/model/types.js'

const T = Date.parse('2026-12-01T10:00:00Z')
const reading = (o: Partial<ScreenObservation>): Contribution => ({
  extra: {
    screen: {
      address: 'main:1.0',
      confirmedAt: null,
      kind: 'busy',
      pane: '%3',
      pid: 4242,
      sig: 'busy',
      since: T,
      startedAt: T - 60_000,
      text: '',
      via: 'pid',
      ...o,
    },
  },
  facts: {},
  nativeId: 's',
})
const open = (from: 'registry' | 'hook' | 'transcript', at = T - 10_000): SessionFacts => ({
  ...EMPTY_FACTS,
  approval: {at, source: {kind: from, ref: 'x'}, text: 'Bash: rm -rf build'},
  lastActivityAt: at,
  messages: 2,
  process: {alive: true, exited: null, heartbeatAt: at, pid: 4242, source: {kind: 'registry', ref: 'r'}, status: null},
  sources: {approval: {kind: from, ref: 'x'}},
})

describe('applyScreen: the screen closes a dialog the files left open', () => {
  it('a registry approval, then the screen busy: the tool runs, working', () => {
    const f = applyScreen(open('registry'), [reading({kind: 'busy'})])
    expect(f.approval).toBeNull()
    expect(f.process?.status).toBe('working')
  })

  it('a hook approval (Gemini), then a plain prompt seen twice: closed and settled', () => {
    const f = applyScreen(open('hook'), [reading({confirmedAt: T + 1500, kind: 'idle', sig: 'idle:1'})])
    expect(f.approval).toBeNull()
    expect(f.settled).toBe(true)
  })

  it('a plain prompt seen once is not enough', () => {
    expect(applyScreen(open('hook'), [reading({kind: 'idle', sig: 'idle:1'})]).approval).not.toBeNull()
  })

  it('the dialog still on screen, a reading older than the dialog, or a transcript-only approval: unchanged', () => {
    expect(applyScreen(open('registry'), [reading({kind: 'approval', text: 'Bash'})]).approval).not.toBeNull()
    expect(applyScreen(open('registry', T), [reading({kind: 'busy', since: T - 5000})]).approval).not.toBeNull()
    expect(applyScreen(open('transcript'), [reading({kind: 'busy'})]).approval).not.toBeNull()
  })
})

describe('a stored screen reading, read back (screenObservationOf)', () => {
  it('is read back as the sweep wrote it; no other source is taken for one, so it never reaches an adapter as its own', () => {
    const r = reading({kind: 'approval', text: 'Bash'})
    expect(screenObservationIn(JSON.stringify(r))).toEqual(r.extra!['screen'])
    expect(isScreenContribution(r)).toBe(true)
    const hooks: Contribution = {extra: {at: T, event: 'Stop', role: 'hooks'}, facts: {}, nativeId: 's'}
    const scan: Contribution = {extra: {scan: 'at_rest'}, facts: {}, nativeId: 's'}
    for (const c of [hooks, scan, {facts: {}, nativeId: 's'}]) expect(isScreenContribution(c)).toBe(false)
    expect(isScreenContribution(reading({kind: 'scrolling' as never}))).toBe(false)
    expect(isScreenContribution(reading({pid: undefined}))).toBe(false)
    for (const data of ['', 'null', '[]', '{"extra":{"screen":1}}']) expect(screenObservationIn(data)).toBeNull()
  })
})
