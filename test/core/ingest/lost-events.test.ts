/**
 * LostEvents (src/core/ingest/lost-events.ts): what makes the live ingester rescan the roots when
 * the watcher's events may have been lost, and how the rescans are coalesced. Real timers; the
 * waits poll with a generous bound.
 */
import {describe, expect, it} from 'vitest'

import {LostEvents, STALL_MS} from '../../../src/core/ingest/lost-events.js'
import {waitFor} from '../../fakes/agents.js'

const make = (gapMs = 60_000): {lost: LostEvents; why: string[]} => {
  const why: string[] = []
  const lost = new LostEvents((w) => why.push(w), 0, 1000, gapMs)
  return {lost, why}
}

describe('LostEvents', () => {
  it('a tick on time with few events asks for nothing', async () => {
    const {lost, why} = make()
    for (let i = 1; i <= 10; i++) {
      for (let k = 0; k < 999; k++) lost.event()
      lost.tick(i * 500, 500)
    }

    await new Promise((r) => setTimeout(r, 50))
    expect(why).toEqual([])
    lost.stop()
  })

  it('a stalled event loop, a burst near the queue size and a watcher error each ask for a rescan', async () => {
    const stall = make()
    stall.lost.tick(500 + STALL_MS + 500, 500)
    await waitFor(() => stall.why.length > 0, 30_000)
    expect(stall.why[0]).toMatch(/stalled 3\.5 s/)

    const burst = make()
    for (let k = 0; k < 1000; k++) burst.lost.event()
    burst.lost.tick(500, 500)
    await waitFor(() => burst.why.length > 0, 30_000)
    expect(burst.why[0]).toMatch(/1000 watcher events/)

    const error = make()
    error.lost.suspect('watch error: ENOSPC', 0)
    await waitFor(() => error.why.length > 0, 30_000)
    expect(error.why).toEqual(['watch error: ENOSPC'])
    for (const x of [stall, burst, error]) x.lost.stop()
  })

  it('coalesces: requests while one is due make one rescan, and the next waits for the gap', async () => {
    const {lost, why} = make(400)
    lost.suspect('one', Date.now())
    lost.suspect('two', Date.now())
    await waitFor(() => why.length > 0, 30_000)
    expect(why).toEqual(['one'])
    lost.suspect('three', Date.now())
    lost.suspect('four', Date.now())
    await waitFor(() => why.length > 1, 30_000)
    expect(why).toEqual(['one', 'three'])
    expect(lost.rescans).toBe(2)
    lost.stop()
  })

  it('a rescan asked for after stop() never runs', async () => {
    const {lost, why} = make(400)
    lost.suspect('one', Date.now())
    await waitFor(() => why.length > 0, 30_000)
    lost.suspect('two', Date.now())
    lost.stop()
    await new Promise((r) => setTimeout(r, 800))
    expect(why).toEqual(['one'])
  })
})
