/**
 * The triage verbs' plans (src/core/model/triage.ts): what each verb changes, given the session
 * as it is, and when it changes nothing or refuses. Both sides of every condition.
 */
import {describe, expect, it} from 'vitest'

import {
  handoffClearsFiling,
  isRefusal,
  type MarkAs,
  planDefer,
  planDismiss,
  planDisown,
  planKill,
  planLabel,
  planMark,
  planOwn,
  planPin,
  planRename,
  planRestore,
  planSnooze,
  planSnoozeDue,
  planStash,
  planWake,
  type TriageView,
} from '../../../src/core/model/triage.js'
import type {Filing, SessionRecords} from '../../../src/core/model/types.js'
import {HOUR, MIN, NOW, records} from './helpers.js'

const ID = 'kdsmarjq4x7fa2bc3de4fg5hi6'
const SHORT = ID.slice(0, 7)
const ANA = 'ana@example.com'
const BO = 'bo@example.com'

function view(r: Partial<SessionRecords> = {}, extra: Partial<Omit<TriageView, 'records'>> = {}): TriageView {
  return {id: ID, labels: {}, records: records(r), renamed: null, ...extra}
}

const FILINGS: (Filing | null)[] = [null, 'stashed', 'hidden', 'dismissed', 'snoozed', 'killed']

describe('handoffClearsFiling: a handoff clears a filing unless it is a kill', () => {
  it.each<[Filing | null, boolean]>([
    [null, false],
    ['stashed', true],
    ['hidden', true],
    ['dismissed', true],
    ['snoozed', true],
    ['killed', false],
  ])('%s -> %s', (filing, clears) => {
    expect(handoffClearsFiling(filing)).toBe(clears)
  })
})

describe('planOwn', () => {
  it('an owner already: nothing to change', () => {
    expect(planOwn(view({owners: [ANA]}), ANA)).toBeNull()
  })

  it.each(FILINGS)('a handoff of a session filed %s clears the filing unless killed', (filing) => {
    const plan = planOwn(view({filedAt: NOW - HOUR, filing, owners: [BO]}), ANA)
    const cleared = filing !== null && filing !== 'killed'
    expect(plan).toEqual({owners: {add: [ANA]}, records: cleared ? {filedAt: null, filing: null} : {}})
  })

  it('clears a snooze time, and only when there is one', () => {
    expect(planOwn(view({filing: 'snoozed', snoozedUntil: NOW + HOUR}), ANA)?.records).toEqual({
      filedAt: null,
      filing: null,
      snoozedUntil: null,
    })
    expect(planOwn(view({filing: 'killed', snoozedUntil: NOW - HOUR}), ANA)?.records).toEqual({snoozedUntil: null})
  })
})

describe('planDisown', () => {
  it('removes an owner', () => {
    expect(planDisown(view({owners: [ANA, BO]}), ANA)).toEqual({owners: {remove: [ANA]}})
  })

  it('refuses (not found) someone who does not own it, naming the owners', () => {
    expect(planDisown(view({owners: [BO]}), ANA)).toEqual({kind: 'not_found', refused: `${ANA} does not own ${SHORT} (its owners: ${BO}).`})
    expect(planDisown(view(), ANA)).toEqual({kind: 'not_found', refused: `${ANA} does not own ${SHORT} (it has no owners).`})
  })

  it('--all clears every owner, and changes nothing when there is none', () => {
    expect(planDisown(view({owners: [ANA, BO]}), {all: true})).toEqual({owners: {clear: true}})
    expect(planDisown(view(), {all: true})).toBeNull()
  })
})

describe('planMark', () => {
  it.each<MarkAs>(['done', 'dormant', 'needs_input'])('a verdict (%s) is recorded with its time', (as) => {
    expect(planMark(view(), NOW, as)).toEqual({records: {verdict: as, verdictAt: NOW}})
  })

  it.each(FILINGS)('a verdict on a session filed %s lifts the filing unless killed', (filing) => {
    const plan = planMark(view({filing}), NOW, 'done')
    const cleared = filing !== null && filing !== 'killed'
    expect(plan?.records).toEqual({verdict: 'done', verdictAt: NOW, ...(cleared ? {filedAt: null, filing: null} : {})})
  })

  it('a verdict ends a snooze time', () => {
    expect(planMark(view({filing: 'snoozed', snoozedUntil: NOW + HOUR}), NOW, 'dormant')?.records?.snoozedUntil).toBeNull()
  })

  it.each<[MarkAs, boolean, boolean | null]>([
    ['unread', false, true],
    ['unread', true, null],
    ['read', true, false],
    ['read', false, null],
  ])('%s when unread is %s sets it to %s (null: nothing to change)', (as, unread, to) => {
    const plan = planMark(view({filing: 'stashed', unread}), NOW, as)
    expect(plan).toEqual(to === null ? null : {records: {unread: to}})
  })
})

describe('planWake', () => {
  it('a running snooze ends now, filing lifted, no verdict', () => {
    expect(planWake(view({filing: 'snoozed', snoozedUntil: NOW + HOUR}), NOW)).toEqual({
      records: {filedAt: null, filing: null, snoozedUntil: NOW},
    })
  })

  it.each([NOW, NOW - MIN])('a snooze already due (until %s) is not a running one: marked needs-input', (until) => {
    expect(planWake(view({filing: 'snoozed', snoozedUntil: until}), NOW)).toEqual({
      records: {filedAt: null, filing: null, snoozedUntil: null, verdict: 'needs_input', verdictAt: NOW},
    })
  })

  it('a session that is not snoozed is marked needs-input, keeping no filing it does not have', () => {
    expect(planWake(view(), NOW)).toEqual({records: {snoozedUntil: null, verdict: 'needs_input', verdictAt: NOW}})
    expect(planWake(view({filing: 'dismissed'}), NOW)).toMatchObject({records: {filedAt: null, filing: null}})
  })

  it('a killed session is refused, pointing at restore', () => {
    const plan = planWake(view({filing: 'killed', killedAt: NOW - HOUR}), NOW)
    expect(isRefusal(plan)).toBe(true)
    expect(plan).toEqual({
      kind: 'refused',
      refused: `${SHORT} is killed: "cast restore ${SHORT}" brings its card back (nothing was woken).`,
    })
  })

  it('a kill a later send cleared is no kill: woken', () => {
    const plan = planWake(view({filing: 'killed', killedAt: NOW - HOUR, lastSendAt: NOW - MIN}), NOW)
    expect(isRefusal(plan)).toBe(false)
    // The filing says killed still; a handoff never lifts that.
    expect(plan).toEqual({records: {snoozedUntil: null, verdict: 'needs_input', verdictAt: NOW}})
  })
})

describe('planKill', () => {
  it('files under Killed, ends a snooze and cancels the schedules', () => {
    expect(planKill(view({filing: 'snoozed', snoozedUntil: NOW + HOUR}), NOW)).toEqual({
      cancelSchedules: true,
      records: {filedAt: NOW, filing: 'killed', killedAt: NOW, snoozedUntil: null},
    })
  })

  it('killed already: nothing to change', () => {
    expect(planKill(view({filing: 'killed', killedAt: NOW - HOUR}), NOW)).toBeNull()
  })

  it('killed, then sent to: killed again', () => {
    expect(planKill(view({killedAt: NOW - HOUR, lastSendAt: NOW - MIN}), NOW)?.records?.killedAt).toBe(NOW)
  })
})

describe('planRestore', () => {
  const LIFTED = {records: {deferredAt: null, filedAt: null, filing: null, killedAt: null, snoozedUntil: null}}
  it.each<[string, Partial<SessionRecords>]>([
    ['a stash', {filedAt: NOW - HOUR, filing: 'stashed'}],
    ['a hidden stash', {filing: 'hidden'}],
    ['a dismiss', {filing: 'dismissed'}],
    ['a snooze time alone', {snoozedUntil: NOW - HOUR}],
    ['a kill', {filing: 'killed', killedAt: NOW - HOUR}],
    ['a kill time alone', {killedAt: NOW - HOUR}],
    ['a defer', {deferredAt: NOW - HOUR}],
  ])('lifts %s', (_what, r) => {
    expect(planRestore(view(r))).toEqual(LIFTED)
  })

  it('nothing set aside: nothing to change (a pin or a verdict is not set aside)', () => {
    expect(planRestore(view({pinned: true, verdict: {at: NOW - HOUR, verdict: 'done'}}))).toBeNull()
  })
})

describe('planSnooze', () => {
  it('files snoozed until the time', () => {
    expect(planSnooze(view({filing: 'stashed'}), NOW, NOW + HOUR)).toEqual({
      records: {filedAt: NOW, filing: 'snoozed', snoozedUntil: NOW + HOUR},
    })
  })

  it.each([NOW, NOW - MIN])('a time not after now (%s) is refused as a usage error', (until) => {
    expect(planSnooze(view(), NOW, until)).toEqual({
      kind: 'usage',
      refused: `The snooze time ${new Date(until).toISOString()} is already past.`,
    })
  })
})

describe('planSnoozeDue (the sweep)', () => {
  it.each<[Filing | null, number | null, boolean]>([
    ['snoozed', NOW - MIN, true],
    ['snoozed', NOW, true],
    ['snoozed', NOW + MIN, false],
    ['snoozed', null, false],
    ['stashed', NOW - MIN, false],
    [null, NOW - MIN, false],
  ])('filed %s until %s: wakes %s', (filing, snoozedUntil, wakes) => {
    // The time stays: the classifier reads snooze_expired from it until the next activity.
    expect(planSnoozeDue({filing, snoozedUntil}, NOW)).toEqual(wakes ? {filedAt: null, filing: null} : null)
  })

  it('agrees with wake on when a snooze is still running', () => {
    for (const until of [NOW - MIN, NOW, NOW + MIN]) {
      const running = planWake(view({filing: 'snoozed', snoozedUntil: until}), NOW)
      const woke = !isRefusal(running) && running?.records?.snoozedUntil === NOW
      expect(woke).toBe(planSnoozeDue({filing: 'snoozed', snoozedUntil: until}, NOW) === null)
    }
  })
})

describe('planStash, planDismiss, planDefer', () => {
  it.each<[boolean, Filing]>([
    [false, 'stashed'],
    [true, 'hidden'],
  ])('stash (hide %s) files %s and ends a snooze', (hide, filing) => {
    expect(planStash(view({filing: 'snoozed', snoozedUntil: NOW + HOUR}), NOW, hide)).toEqual({
      records: {filedAt: NOW, filing, snoozedUntil: null},
    })
  })

  it('dismiss files dismissed and ends a snooze', () => {
    expect(planDismiss(view(), NOW)).toEqual({records: {filedAt: NOW, filing: 'dismissed', snoozedUntil: null}})
  })

  it('defer records when', () => {
    expect(planDefer(view(), NOW)).toEqual({records: {deferredAt: NOW}})
  })
})

describe('planPin', () => {
  it.each<[boolean, boolean, boolean]>([
    [false, true, true],
    [true, false, true],
    [true, true, false],
    [false, false, false],
  ])('pinned %s, asked %s: changes %s', (pinned, to, changes) => {
    expect(planPin(view({pinned}), to)).toEqual(changes ? {records: {pinned: to}} : null)
  })
})

describe('planLabel', () => {
  it('sets, replaces and clears only the acting user’s label', () => {
    expect(planLabel(view({}, {labels: {[BO]: 'fleet'}}), ANA, 'fleet')).toEqual({label: 'fleet'})
    expect(planLabel(view({}, {labels: {[ANA]: 'old'}}), ANA, 'fleet')).toEqual({label: 'fleet'})
    expect(planLabel(view({}, {labels: {[ANA]: 'old'}}), ANA, null)).toEqual({label: null})
  })

  it('the label it has already, or clearing none: nothing to change', () => {
    expect(planLabel(view({}, {labels: {[ANA]: 'fleet'}}), ANA, 'fleet')).toBeNull()
    expect(planLabel(view({}, {labels: {[BO]: 'fleet'}}), ANA, null)).toBeNull()
  })
})

describe('planRename', () => {
  it('sets or clears the title; the same title changes nothing', () => {
    expect(planRename(view(), 'Agent badge')).toEqual({records: {renamed: 'Agent badge'}})
    expect(planRename(view({}, {renamed: 'Agent badge'}), null)).toEqual({records: {renamed: null}})
    expect(planRename(view({}, {renamed: 'Agent badge'}), 'Agent badge')).toBeNull()
    expect(planRename(view(), null)).toBeNull()
  })
})

describe('isRefusal', () => {
  it('tells a refusal from a change and from nothing', () => {
    expect(isRefusal({kind: 'refused', refused: 'no'})).toBe(true)
    expect(isRefusal({records: {}})).toBe(false)
    expect(isRefusal(null)).toBe(false)
  })
})
