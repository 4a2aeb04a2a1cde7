/**
 * The schedules family (src/core/store/schedules.ts) on a real store: delivered exactly once
 * across claimers, a recurring one re-armed at its next occurrence (missed ones skipped), a claim
 * whose process died marked failed and never re-sent, ids found by a unique prefix.
 */
import {describe, expect, it} from 'vitest'

import {Store} from '../../../src/core/store/store.js'
import {
  cancelSchedule,
  claimSchedule,
  createSchedule,
  dueScheduleIds,
  failAbandonedClaims,
  findSchedule,
  finishDelivery,
  getSchedule,
  listSchedules,
} from '../../../src/core/store/schedules.js'
import {HOUR, MINUTE, NOW, useStore} from './fixture.js'

const f = useStore()
const arm = (sessionId: string, dueAt: number, everyMs: number | null = null, message = 'go on') =>
  createSchedule(f.store, {createdAt: NOW, createdBy: 'me', dueAt, everyMs, message, sessionId})

describe('schedules', () => {
  it('lists the pending ones by due time, and every one with all', () => {
    const a = f.add('a')
    const late = arm(a, NOW + 2 * HOUR)
    const soon = arm(a, NOW + HOUR)
    const gone = arm(a, NOW + 30 * MINUTE)
    cancelSchedule(f.store, gone.id, NOW)

    expect(listSchedules(f.store).map((s) => s.id)).toEqual([soon.id, late.id])
    expect(listSchedules(f.store, {all: true}).map((s) => s.id)).toEqual([gone.id, soon.id, late.id])
    expect(listSchedules(f.store, {sessionId: f.add('b')})).toEqual([])
  })

  it('is due at its time, oldest first, and claimed by exactly one of two stores', () => {
    const a = f.add('a')
    const first = arm(a, NOW + MINUTE)
    const second = arm(a, NOW + 2 * MINUTE)

    expect(dueScheduleIds(f.store, NOW)).toEqual([])
    expect(dueScheduleIds(f.store, NOW + 2 * MINUTE)).toEqual([first.id, second.id])

    const other = new Store(f.home)
    try {
      const wins = [claimSchedule(f.store, first.id, 'me:1', NOW + 2 * MINUTE), claimSchedule(other, first.id, 'me:2', NOW + 2 * MINUTE)]
      expect(wins).toEqual([true, false])
    } finally {
      other.close()
    }

    expect(getSchedule(f.store, first.id)).toMatchObject({claimedBy: 'me:1', status: 'delivering'})
    expect(dueScheduleIds(f.store, NOW + 2 * MINUTE)).toEqual([second.id])
    expect(claimSchedule(f.store, second.id, 'me:1', NOW)).toBe(false)
  })

  it('ends a one-shot delivered, or failed with its error, and only for its claimer', () => {
    const a = f.add('a')
    const ok = arm(a, NOW)
    const bad = arm(a, NOW)
    claimSchedule(f.store, ok.id, 'me:1', NOW)
    claimSchedule(f.store, bad.id, 'me:1', NOW)

    expect(finishDelivery(f.store, ok.id, 'me:2', {error: null, now: NOW + 1})?.status).toBe('delivering')
    expect(finishDelivery(f.store, ok.id, 'me:1', {error: null, now: NOW + 1})).toMatchObject({
      deliveredAt: NOW + 1,
      deliveries: 1,
      status: 'delivered',
    })
    expect(finishDelivery(f.store, bad.id, 'me:1', {error: 'no pane', now: NOW + 1})).toMatchObject({
      deliveries: 0,
      lastError: 'no pane',
      status: 'failed',
    })
  })

  it('re-arms a recurring one at its next occurrence after now, skipping the missed ones', () => {
    const a = f.add('a')
    const s = arm(a, NOW, HOUR)
    claimSchedule(f.store, s.id, 'me:1', NOW + 3 * HOUR + MINUTE)

    expect(finishDelivery(f.store, s.id, 'me:1', {error: null, now: NOW + 3 * HOUR + MINUTE})).toMatchObject({
      claimedBy: null,
      deliveries: 1,
      dueAt: NOW + 4 * HOUR,
      status: 'armed',
    })
  })

  it('marks a claim whose process died failed, never due again', () => {
    const a = f.add('a')
    const s = arm(a, NOW)
    const live = arm(a, NOW)
    claimSchedule(f.store, s.id, 'dead:1', NOW)
    claimSchedule(f.store, live.id, 'live:2', NOW)

    expect(failAbandonedClaims(f.store, (claimer) => claimer.startsWith('dead'), NOW + 1)).toEqual([s.id])
    expect(getSchedule(f.store, s.id)).toMatchObject({status: 'failed'})
    expect(getSchedule(f.store, s.id)?.lastError).toContain('not re-sent')
    expect(getSchedule(f.store, live.id)?.status).toBe('delivering')
    expect(dueScheduleIds(f.store, NOW + HOUR)).toEqual([])
  })

  it('cancels only an armed one, and says whether it did', () => {
    const a = f.add('a')
    const s = arm(a, NOW + HOUR)

    expect(cancelSchedule(f.store, s.id, NOW)).toMatchObject({cancelled: true, schedule: {status: 'cancelled'}})
    expect(cancelSchedule(f.store, s.id, NOW)).toMatchObject({cancelled: false})
    expect(cancelSchedule(f.store, 'snope', NOW)).toBeNull()
  })

  it('is found by its id or a unique prefix of four characters or more', () => {
    const a = f.add('a')
    const s = arm(a, NOW + HOUR)

    expect(findSchedule(f.store, s.id.toUpperCase())).toMatchObject({kind: 'one', schedule: {id: s.id}})
    expect(findSchedule(f.store, s.id.slice(0, 4))).toMatchObject({kind: 'one', schedule: {id: s.id}})
    expect(findSchedule(f.store, s.id.slice(0, 3))).toEqual({kind: 'none'})
    expect(findSchedule(f.store, 'zzzzzz')).toEqual({kind: 'none'})
  })
})
