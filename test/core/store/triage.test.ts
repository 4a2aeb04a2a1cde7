/**
 * The triage family (src/core/store/triage.ts) on a real store: an action is one undo step over
 * every session it touched, undo is per person, a snooze that came due is woken by exactly one
 * sweep, and a kill's cancelled schedules come back with its undo.
 */
import {describe, expect, it} from 'vitest'

import {Store} from '../../../src/core/store/store.js'
import {createSchedule, getSchedule} from '../../../src/core/store/schedules.js'
import {applyTriage, labelOf, listActions, sweepSnoozes, undoLast} from '../../../src/core/store/triage.js'
import {historyMark, historySessionsAfter} from '../../../src/core/store/watch-marks.js'
import {HOUR, MINUTE, NOW, useStore} from './fixture.js'

const f = useStore()
const snooze = (until: number) => () => ({records: {filedAt: NOW, filing: 'snoozed' as const, snoozedUntil: until}})

describe('triage actions and undo', () => {
  it('files every session of one action, and one undo puts them all back', () => {
    const a = f.add('a')
    const b = f.add('b')
    const before = f.row(a).bucket

    const done = applyTriage(f.store, {now: NOW, verb: 'snooze', who: 'me'}, [a, b], snooze(NOW + HOUR))

    expect(done.sessions).toEqual([a, b])
    expect(done.transitions).toBeGreaterThan(0)
    expect([f.row(a).bucket, f.row(b).bucket]).toEqual(['snoozed', 'snoozed'])
    expect(listActions(f.store, 'me', 10)).toMatchObject([{action: done.action, sessions: [a, b], undoneAt: null, verb: 'snooze'}])

    const undone = undoLast(f.store, 'me', NOW + MINUTE)
    expect(undone).toMatchObject({action: done.action, sessions: [a, b], undoneAt: NOW + MINUTE, verb: 'snooze'})
    expect([f.row(a).bucket, f.row(b).bucket]).toEqual([before, before])
    expect(f.row(a).records.filing).toBeNull()
    expect(undoLast(f.store, 'me', NOW + 2 * MINUTE)).toBeNull()
  })

  it("undoes only the asking person's last action, newest first", () => {
    const a = f.add('a')
    applyTriage(f.store, {now: NOW, verb: 'pin', who: 'me'}, [a], () => ({records: {pinned: true}}))
    applyTriage(f.store, {now: NOW + 1, verb: 'snooze', who: 'you'}, [a], snooze(NOW + HOUR))

    expect(undoLast(f.store, 'me', NOW + 2)?.verb).toBe('pin')
    expect(f.row(a).records.pinned).toBe(false)
    expect(f.row(a).records.filing).toBe('snoozed')
    expect(undoLast(f.store, 'me', NOW + 3)).toBeNull()
  })

  it('writes no history and no transition when the plan leaves every session alone', () => {
    const a = f.add('a')
    const seq = f.store.lastSeq()

    expect(applyTriage(f.store, {now: NOW, verb: 'pin', who: 'me'}, [a], () => null)).toEqual({action: null, sessions: [], transitions: 0})
    expect(listActions(f.store, null, 10)).toEqual([])
    expect(f.store.lastSeq()).toBe(seq)
  })

  it('keeps one label per person, and undo restores the one there was', () => {
    const a = f.add('a')
    applyTriage(f.store, {now: NOW, verb: 'label', who: 'me'}, [a], () => ({label: 'parser'}))
    applyTriage(f.store, {now: NOW, verb: 'label', who: 'you'}, [a], () => ({label: 'theirs'}))
    applyTriage(f.store, {now: NOW + 1, verb: 'label', who: 'me'}, [a], () => ({label: 'lexer'}))

    expect(f.row(a).labels).toEqual({me: 'lexer', you: 'theirs'})
    undoLast(f.store, 'me', NOW + 2)
    expect(labelOf(f.store, a, 'me')).toBe('parser')
    expect(labelOf(f.store, a, 'you')).toBe('theirs')
  })

  it("cancels a killed session's armed schedules and re-arms them on undo", () => {
    const a = f.add('a')
    const s = createSchedule(f.store, {createdAt: NOW, createdBy: 'me', dueAt: NOW + HOUR, everyMs: null, message: 'go on', sessionId: a})

    applyTriage(f.store, {now: NOW, verb: 'kill', who: 'me'}, [a], () => ({cancelSchedules: true, records: {killedAt: NOW}}))
    expect(getSchedule(f.store, s.id)?.status).toBe('cancelled')

    undoLast(f.store, 'me', NOW + 1)
    expect(getSchedule(f.store, s.id)?.status).toBe('armed')
  })

  it('leaves a mark a watcher can poll: the sessions of each new action and each undo', () => {
    const a = f.add('a')
    const b = f.add('b')
    const start = historyMark(f.store)

    applyTriage(f.store, {now: NOW, verb: 'pin', who: 'me'}, [b], () => ({records: {pinned: true}}))
    const after = historyMark(f.store)
    expect(after.lastId).toBeGreaterThan(start.lastId)
    expect(historySessionsAfter(f.store, start.lastId)).toEqual([b])
    expect(historySessionsAfter(f.store, after.lastId)).toEqual([])

    undoLast(f.store, 'me', NOW + 1)
    expect(historyMark(f.store)).toEqual({lastId: after.lastId, undone: start.undone + 1})
    expect(historySessionsAfter(f.store, start.lastId)).not.toContain(a)
  })
})

describe('the snooze sweep', () => {
  it('wakes a snooze once it is due, and only once', () => {
    const a = f.add('a')
    applyTriage(f.store, {now: NOW, verb: 'snooze', who: 'me'}, [a], snooze(NOW + HOUR))

    expect(sweepSnoozes(f.store, NOW + HOUR - 1).woken).toEqual([])
    expect(f.row(a).bucket).toBe('snoozed')

    expect(sweepSnoozes(f.store, NOW + HOUR).woken).toEqual([a])
    expect(f.row(a).records.filing).toBeNull()
    expect(f.row(a).bucket).not.toBe('snoozed')
    expect(sweepSnoozes(f.store, NOW + HOUR + 1).woken).toEqual([])
  })

  it('wakes a due snooze in exactly one of two stores sweeping the same file', () => {
    const a = f.add('a')
    applyTriage(f.store, {now: NOW, verb: 'snooze', who: 'me'}, [a], snooze(NOW + HOUR))
    const other = new Store(f.home)
    try {
      const woken = [sweepSnoozes(other, NOW + HOUR).woken, sweepSnoozes(f.store, NOW + HOUR).woken]
      expect(woken.flat()).toEqual([a])
    } finally {
      other.close()
    }
  })

  it('never wakes a session filed some other way', () => {
    const a = f.add('a')
    applyTriage(f.store, {now: NOW, verb: 'stash', who: 'me'}, [a], () => ({records: {filedAt: NOW, filing: 'stashed' as const}}))

    expect(sweepSnoozes(f.store, NOW + 100 * HOUR).woken).toEqual([])
    expect(f.row(a).records.filing).toBe('stashed')
  })
})
