import {describe, expect, it} from 'vitest'
import {birthWindow, bornOfAnother, sessionBornOf} from '../../../src/core/ingest/thread-birth.js'

// Figures from a real run (docs/agents/codex.md "Which thread a TUI shows"): two Codex TUIs in one
// folder on one app-server daemon; times in seconds after the first TUI started.
const s = (n: number): number => 1_800_000_000_000 + n * 1000

describe('thread birth: which live TUI created a session', () => {
  it('ties each TUI to the thread created in its own window when the second started after the first thread', () => {
    // TUI one at 0 s (its thread 11 s later: it installed the daemon), TUI two at 14 s (thread at 15.6 s).
    const creators = [
      {pid: 100, startedAt: s(0)},
      {pid: 200, startedAt: s(14)},
    ]
    const threads = [
      {createdAt: s(11.04), nativeId: 'one'},
      {createdAt: s(15.58), nativeId: 'two'},
    ]
    expect(sessionBornOf(creators, 100, threads)).toBe('one')
    expect(sessionBornOf(creators, 200, threads)).toBe('two')
    expect(bornOfAnother(creators, 100, threads[1]!)).toBe(true)
    expect(bornOfAnother(creators, 200, threads[0]!)).toBe(true)
    expect(bornOfAnother(creators, 100, threads[0]!)).toBe(false)
  })

  it('leaves both untied when the first thread appeared after the second TUI had started', () => {
    // Seen: TUI one at 0 s, TUI two at 7.66 s, thread one at 7.94 s, thread two at 9.05 s.
    const creators = [
      {pid: 100, startedAt: s(0)},
      {pid: 200, startedAt: s(7.66)},
    ]
    const threads = [
      {createdAt: s(7.94), nativeId: 'one'},
      {createdAt: s(9.05), nativeId: 'two'},
    ]
    expect(sessionBornOf(creators, 100, threads)).toBeNull()
    expect(sessionBornOf(creators, 200, threads)).toBeNull()
  })

  it('ties nothing to two processes started at the same moment', () => {
    const creators = [
      {pid: 100, startedAt: s(0)},
      {pid: 200, startedAt: s(0)},
    ]
    expect(birthWindow(creators, 100)!.to).toBeLessThanOrEqual(birthWindow(creators, 100)!.from)
    expect(sessionBornOf(creators, 100, [{createdAt: s(1), nativeId: 'x'}])).toBeNull()
    expect(sessionBornOf(creators, 200, [{createdAt: s(1), nativeId: 'x'}])).toBeNull()
  })

  it('does not count a resumed session (created before any live process) as created by one', () => {
    const creators = [{pid: 100, startedAt: s(0)}]
    const old = {createdAt: s(-3600), nativeId: 'old'}
    expect(sessionBornOf(creators, 100, [old])).toBeNull()
    expect(bornOfAnother(creators, 200, old)).toBe(false)
  })

  it('leaves a process untied when a session of a process now gone was created in its window too', () => {
    const creators = [{pid: 100, startedAt: s(0)}]
    expect(
      sessionBornOf(creators, 100, [
        {createdAt: s(2), nativeId: 'mine'},
        {createdAt: s(4), nativeId: 'of-a-gone-tui'},
      ]),
    ).toBeNull()
    // Its window closes BIRTH_WINDOW_MS after its start.
    expect(sessionBornOf(creators, 100, [{createdAt: s(3600), nativeId: 'later'}])).toBeNull()
  })
})
