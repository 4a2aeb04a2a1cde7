/**
 * The test-file order (sequencer.ts): played out on the workers with the estimates it planned
 * from, no two heavy files overlap while a light file is left to run instead, every file is
 * started once, and the light files go longest first.
 */
import {describe, expect, it} from 'vitest'

import {type Planned, planOrder} from './sequencer.js'

/** Play the order out as vitest's pool does: each file goes to the first worker to come free. */
function playOut(
  order: readonly string[],
  files: readonly Planned<string>[],
  workers: number,
): {id: string; start: number; end: number; heavy: boolean}[] {
  const by = new Map(files.map((f) => [f.item, f]))
  const free = Array.from({length: workers}, () => 0)
  return order.map((id) => {
    const i = free.indexOf(Math.min(...free))
    const f = by.get(id)!
    const start = free[i]!
    free[i] = start + f.estimateMs
    return {end: free[i]!, heavy: f.heavy, id, start}
  })
}

const file = (item: string, estimateMs: number, heavy = false, failed = false): Planned<string> => ({estimateMs, failed, heavy, item})

describe('planOrder', () => {
  const files = [
    file('lease', 19_000, true),
    file('live', 14_000, true),
    file('writers', 12_000, true),
    file('presence', 10_000),
    file('spawn', 8_000),
    file('walkthrough', 7_000),
    file('orchestrator', 4_700),
    file('state', 4_000),
    ...Array.from({length: 30}, (_, i) => file(`unit-${i}`, 300 + 100 * i)),
  ]

  it('never runs two heavy files at once on two workers, and starts every file once', () => {
    const order = planOrder(files, 2)
    const runs = playOut(order, files, 2)

    expect([...order].sort()).toEqual(files.map((f) => f.item).sort())
    const heavy = runs.filter((r) => r.heavy)
    for (const a of heavy)
      for (const b of heavy) if (a !== b) expect(a.end <= b.start || b.end <= a.start, `${a.id} and ${b.id} overlap`).toBe(true)
    // The heavy files run back to back on one worker while the other takes the rest.
    expect(Math.max(...runs.map((r) => r.end))).toBeLessThan(files.reduce((s, f) => s + f.estimateMs, 0) * 0.55)
  })

  it('puts the light files longest first, failed ones before them', () => {
    const withFailed = [...files, file('flaky', 100, false, true)]
    const light = planOrder(withFailed, 2).filter((id) => !withFailed.find((f) => f.item === id)!.heavy)

    expect(light[0]).toBe('flaky')
    expect(light.slice(1, 4)).toEqual(['presence', 'spawn', 'walkthrough'])
  })

  it('with one worker: the heavy files first, then the light ones, each once', () => {
    const order = planOrder(files, 1)
    expect(order.slice(0, 3)).toEqual(['lease', 'live', 'writers'])
    expect(order).toHaveLength(files.length)
  })

  it('when only heavy files are left, they still run (the sum of heavy work exceeds the light)', () => {
    const order = planOrder([file('a', 10_000, true), file('b', 10_000, true), file('c', 1000)], 2)
    expect([...order].sort()).toEqual(['a', 'b', 'c'])
  })
})
