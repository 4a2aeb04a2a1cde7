import {describe, expect, it} from 'vitest'
import {birthInDoubt, birthWindow, bornOfAnother, sessionBornOf} from '../../../src/core/ingest/thread-birth.js'

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

  // On a slow machine: the first TUI's thread appears after the second TUI started, and the
  // second's own thread is not there yet (or comes later than its window).
  const slow = [
    {pid: 100, startedAt: s(0)},
    {pid: 200, startedAt: s(5)},
  ]
  it.each([
    {name: 'the second TUI still starting', threads: [{createdAt: s(8), nativeId: 'one'}], tied: [null, null]},
    {
      name: 'both threads late, in the second window',
      threads: [
        {createdAt: s(8), nativeId: 'one'},
        {createdAt: s(9), nativeId: 'two'},
      ],
      tied: [null, null],
    },
    {
      name: 'the first thread in time, the second still starting',
      threads: [{createdAt: s(1.4), nativeId: 'one'}],
      tied: ['one', null],
    },
    {
      name: 'each in its own window',
      threads: [
        {createdAt: s(1.4), nativeId: 'one'},
        {createdAt: s(6.5), nativeId: 'two'},
      ],
      tied: ['one', 'two'],
    },
  ])('under load, $name: never ties a thread that may be an earlier TUI’s', ({threads, tied}) => {
    expect([sessionBornOf(slow, 100, threads), sessionBornOf(slow, 200, threads)]).toEqual(tied)
    // The lone-candidate path (pane-tie.ts) asks birthInDoubt for each thread in the folder.
    const late = threads.find((t) => t.createdAt === s(8))
    if (late) expect(birthInDoubt(slow, 200, late, threads)).toBe(true)
  })

  it('an earlier TUI whose window is empty casts no doubt once its own window could not reach the thread', () => {
    const creators = [
      {pid: 100, startedAt: s(0)},
      {pid: 200, startedAt: s(120)},
    ]
    const thread = {createdAt: s(121), nativeId: 'two'}
    expect(birthInDoubt(creators, 200, thread, [thread])).toBe(false)
    expect(sessionBornOf(creators, 200, [thread])).toBe('two')
  })
})
