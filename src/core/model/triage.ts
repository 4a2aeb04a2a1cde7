/**
 * The triage verbs as pure plans (docs/contract.md §3.3, §3.6, §3.7): each takes the session as it is, the
 * clock and the verb's arguments, and says what to change (a `TriageChange`), that nothing needs
 * changing (null), or why the whole action is refused. The store applies a change (saving what it
 * replaces for `cast undo`); the commands only resolve sessions, call a plan and print.
 */
import {shortId} from './ids.js'
import {isOwnedBy} from './ownership.js'
import type {Declaration, Filing, SessionRecords, Verdict} from './types.js'
import {isKilled} from './work-state.js'

/** The part of cast's records about a session a verb may change (and undo restores). */
export interface RecordsPatch {
  declaration?: Declaration | null
  verdict?: Verdict | null
  verdictAt?: number | null
  filing?: Filing | null
  filedAt?: number | null
  snoozedUntil?: number | null
  killedAt?: number | null
  lastSendAt?: number | null
  pinned?: boolean
  deferredAt?: number | null
  unread?: boolean
  deliveredTurn?: number | null
  renamed?: string | null
}

/** What a verb does to one session. Only the keys present are touched (and saved for undo). */
export interface TriageChange {
  readonly records?: RecordsPatch
  /** Owners to add (in order), to remove, or clear them all first. */
  readonly owners?: {readonly add?: readonly string[]; readonly remove?: readonly string[]; readonly clear?: boolean}
  /** Set (a string) or clear (null) the acting user's personal label. */
  readonly label?: string | null
  /** Cancel the session's armed scheduled messages (kill). */
  readonly cancelSchedules?: boolean
}

/** Why a verb refuses the whole action because of one session, and what kind of refusal it is. */
export interface TriageRefusal {
  readonly refused: string
  /** `usage`: a value that no longer holds (a time already past); `not_found`: no such owner; `refused`: the state forbids it. */
  readonly kind: 'usage' | 'not_found' | 'refused'
}

/** A plan's answer: the change, null (nothing to change here), or a refusal of the whole action. */
export type TriagePlan = TriageChange | null | TriageRefusal

export function isRefusal(plan: TriagePlan): plan is TriageRefusal {
  return plan !== null && 'refused' in plan
}

/** What a plan reads of a session: its id, cast's records, the title cast gave it, its labels. */
export interface TriageView {
  readonly id: string
  readonly records: SessionRecords
  /** The title `cast rename` set, or null. */
  readonly renamed: string | null
  /** Every user's personal label: who -> label. */
  readonly labels: Readonly<Record<string, string>>
}

/**
 * A person's verb that hands a session back to someone (own, mark, wake) clears its filing
 * (a dismiss, stash, hidden stash or snooze) so it lands where they see it; a kill stands.
 */
export function handoffClearsFiling(filing: Filing | null): boolean {
  return filing !== null && filing !== 'killed'
}

/** The records a handoff changes: the filing unless it is a kill, and any snooze time. */
function handoff(r: SessionRecords): RecordsPatch {
  return {...(handoffClearsFiling(r.filing) ? {filedAt: null, filing: null} : {}), ...(r.snoozedUntil === null ? {} : {snoozedUntil: null})}
}

/** `cast own`: add `who` as an owner (a handoff); nothing when they own it already. */
export function planOwn(s: TriageView, who: string): TriageChange | null {
  if (isOwnedBy(s.records.owners, who)) return null
  return {owners: {add: [who]}, records: handoff(s.records)}
}

/** `cast disown`: remove `who` (refused when they do not own it), or every owner with `all`. */
export function planDisown(s: TriageView, who: string | {readonly all: true}): TriagePlan {
  const {owners} = s.records
  if (typeof who !== 'string') return owners.length === 0 ? null : {owners: {clear: true}}
  if (isOwnedBy(owners, who)) return {owners: {remove: [who]}}
  const have = owners.length === 0 ? 'it has no owners' : `its owners: ${owners.join(', ')}`
  return {kind: 'not_found', refused: `${who} does not own ${shortId(s.id)} (${have}).`}
}

/** What `cast mark` files a session as: a verdict, or the unread flag set or cleared. */
export type MarkAs = Verdict | 'unread' | 'read'

/** `cast mark`: a verdict is a handoff back to the person (it lifts a filing, not a kill); unread/read flip the flag. */
export function planMark(s: TriageView, now: number, as: MarkAs): TriageChange | null {
  if (as === 'unread' || as === 'read') {
    const unread = as === 'unread'
    return s.records.unread === unread ? null : {records: {unread}}
  }

  return {records: {verdict: as, verdictAt: now, ...handoff(s.records)}}
}

/**
 * `cast wake`: a snooze still running ends now (reason snooze_expired until the next activity);
 * anything else is marked needs-input. Lifts a filing like a handoff. A killed session is refused.
 */
export function planWake(s: TriageView, now: number): TriagePlan {
  const r = s.records
  if (isKilled(r)) {
    const id = shortId(s.id)
    return {kind: 'refused', refused: `${id} is killed: "cast restore ${id}" brings its card back (nothing was woken).`}
  }

  const records: RecordsPatch = handoffClearsFiling(r.filing) ? {filedAt: null, filing: null} : {}
  if (snoozeRunning(r, now)) return {records: {...records, snoozedUntil: now}}
  return {records: {...records, snoozedUntil: null, verdict: 'needs_input', verdictAt: now}}
}

/** `cast kill`: file under Killed and cancel its armed schedules; null when it is killed already. */
export function planKill(s: TriageView, now: number): TriageChange | null {
  if (isKilled(s.records)) return null
  return {cancelSchedules: true, records: {filedAt: now, filing: 'killed', killedAt: now, snoozedUntil: null}}
}

/** `cast restore`: lift every setting-aside (stash, dismiss, snooze, defer, kill); null when there is none. */
export function planRestore(s: TriageView): TriageChange | null {
  const r = s.records
  if (r.filing === null && r.snoozedUntil === null && r.killedAt === null && r.deferredAt === null) return null
  return {records: {deferredAt: null, filedAt: null, filing: null, killedAt: null, snoozedUntil: null}}
}

/** `cast snooze`: filed snoozed until `until`; refused when that time is not after now. */
export function planSnooze(_s: TriageView, now: number, until: number): TriagePlan {
  if (until <= now) return {kind: 'usage', refused: `The snooze time ${new Date(until).toISOString()} is already past.`}
  return {records: {filedAt: now, filing: 'snoozed', snoozedUntil: until}}
}

/** A snooze time still ahead of now (at its time, the snooze has come due). */
function snoozeRunning(r: Pick<SessionRecords, 'snoozedUntil'>, now: number): boolean {
  return r.snoozedUntil !== null && r.snoozedUntil > now
}

/**
 * The snooze sweep, for a session filed snoozed whose time has come: the filing goes (the
 * classifier reads it needs_input/snooze_expired; `snoozedUntil` stays so it does until the next
 * activity). Null for any other session.
 */
export function planSnoozeDue(r: Pick<SessionRecords, 'filing' | 'snoozedUntil'>, now: number): RecordsPatch | null {
  return r.filing === 'snoozed' && r.snoozedUntil !== null && !snoozeRunning(r, now) ? {filedAt: null, filing: null} : null
}

/** `cast stash` (`hide`: `--hide`): out of the inbox while the agent runs; ends a snooze. */
export function planStash(_s: TriageView, now: number, hide: boolean): TriageChange | null {
  return {records: {filedAt: now, filing: hide ? 'hidden' : 'stashed', snoozedUntil: null}}
}

/** `cast dismiss`: out of every section; ends a snooze. */
export function planDismiss(_s: TriageView, now: number): TriageChange | null {
  return {records: {filedAt: now, filing: 'dismissed', snoozedUntil: null}}
}

/** `cast pin` (`pinned` true) and `cast unpin` (false); null when it already is. */
export function planPin(s: TriageView, pinned: boolean): TriageChange | null {
  return s.records.pinned === pinned ? null : {records: {pinned}}
}

/** `cast defer`: down its section until the next activity after now. */
export function planDefer(_s: TriageView, now: number): TriageChange | null {
  return {records: {deferredAt: now}}
}

/** `cast label`: set (a label) or clear (null) `who`'s label; null when it is that already. */
export function planLabel(s: TriageView, who: string, label: string | null): TriageChange | null {
  return (s.labels[who] ?? null) === label ? null : {label}
}

/** `cast rename`: the title cast shows (null: the agent's own again); null when it is that already. */
export function planRename(s: TriageView, title: string | null): TriageChange | null {
  return s.renamed === title ? null : {records: {renamed: title}}
}
