import {describe, expect, it} from 'vitest'

import {EventCursor, type StreamEvent} from '../../src/core/store/team/stream.js'

const ev = (seq: number, device = 'a', localSeq = seq, epoch = 'e'): StreamEvent => ({
  at: new Date(0),
  device,
  deviceAt: null,
  epoch,
  kind: 'transition',
  localSeq,
  payload: {},
  seq,
  sessionId: 's',
})
const snap = (...xip: string[]): {xip: Set<string>} => ({xip: new Set(xip)})
const seqs = (a: StreamEvent[]): number[] => a.map((e) => e.seq)

describe('the team stream cursor', () => {
  it('waits at a missing seq while a transaction running when it was first seen still runs, then passes it', () => {
    const c = new EventCursor(0)
    expect(seqs(c.accept([ev(1), ev(3)], snap('100', '101'), 0))).toEqual([1])
    expect(c.waiting).toBe(true)
    // 101 still runs (a later transaction 102 does not matter): still waiting.
    expect(seqs(c.accept([ev(3)], snap('101', '102'), 1000))).toEqual([])
    // Seq 2 committed: printed in order.
    expect(seqs(c.accept([ev(2), ev(3)], snap('102'), 2000))).toEqual([2, 3])
    // A gap no running transaction can fill (rolled back): passed at once.
    expect(seqs(c.accept([ev(5)], snap(), 3000))).toEqual([5])
    expect(c.last).toBe(5)
  })

  it('passes a gap held open longer than its bound', () => {
    const c = new EventCursor(0, 30_000)
    expect(seqs(c.accept([ev(2)], snap('7'), 0))).toEqual([])
    expect(seqs(c.accept([ev(2)], snap('7'), 29_999))).toEqual([])
    expect(seqs(c.accept([ev(2)], snap('7'), 30_000))).toEqual([2])
  })

  it("drops a device's copied or out-of-order events, per epoch", () => {
    const c = new EventCursor(0)
    const out = c.accept([ev(1, 'a', 10), ev(2, 'a', 10), ev(3, 'a', 9), ev(4, 'b', 1), ev(5, 'a', 11), ev(6, 'a', 1, 'e2')], snap(), 0)
    expect(out.map((e) => `${e.device}${e.localSeq}`)).toEqual(['a10', 'b1', 'a11', 'a1'])
    expect(c.last).toBe(6)
  })
})
