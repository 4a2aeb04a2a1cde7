/**
 * A park that releases itself (seed 002, "Park and Snooze"): a stash gated on another session.
 * It releases, with a notification, the first time the other session goes from working to a
 * rest state after the park was made, and also when the other session is killed, dismissed or
 * gone; a park nobody revisited in 14 days is dropped; at most PARK_LIMIT at once. Pure: the
 * store loads the parks and what happened to each other session, and applies the decisions.
 */
import type {Filing} from './types.js'

export const PARK_LIMIT = 200
export const PARK_STALE_MS = 14 * 24 * 60 * 60 * 1000
/** The longest note kept, in characters. */
export const PARK_NOTE_MAX = 500

export interface Park {
  readonly sessionId: string
  /** The session whose turn ending releases it. */
  readonly untilId: string
  readonly note: string | null
  readonly madeAt: number
  /** When the person last made or re-made it. */
  readonly seenAt: number
  /** The transitions log's last seq when it was made: only later transitions of the other count. */
  readonly afterSeq: number
  /** When it ended (released or dropped); null while it holds. */
  readonly endedAt: number | null
  readonly ended: ParkEnd | null
}

export const PARK_ENDS = ['ready', 'gone', 'stale', 'lifted'] as const
/** Why a park ended: the other went to rest, the other went away, nobody revisited it, or the stash was lifted otherwise. */
export type ParkEnd = (typeof PARK_ENDS)[number]

export interface ParkRefusal {
  /** usage: exit 2; refused: exit 5. */
  readonly kind: 'usage' | 'refused'
  readonly message: string
}

/** What the store knows about the target when a park is asked for. */
export interface ParkTarget {
  readonly id: string
  readonly killed: boolean
}

/** The parks holding now (not ended), by parked session. */
export type ActiveParks = ReadonlyMap<string, Pick<Park, 'sessionId' | 'untilId'>>

/**
 * Park `sessionId` until `target` is ready, or a refusal: on itself, on a killed session, in a
 * cycle (the target already waits, through parks, on this session), or past PARK_LIMIT.
 */
export function planPark(
  sessionId: string,
  target: ParkTarget,
  note: string | null,
  active: ActiveParks,
  now: number,
  afterSeq: number,
): Park | ParkRefusal {
  if (target.id === sessionId) return {kind: 'usage', message: 'A session cannot be parked until it is ready itself.'}
  if (target.killed) return {kind: 'usage', message: 'That session was killed: it will not be ready again. Park on a live one.'}
  const seen = new Set<string>([target.id])
  for (let cur = active.get(target.id); cur !== undefined; cur = active.get(cur.untilId)) {
    if (cur.untilId === sessionId)
      return {kind: 'usage', message: 'That would be a cycle: the other session already waits, through parks, on this one.'}
    if (seen.has(cur.untilId)) break
    seen.add(cur.untilId)
  }
  if (!active.has(sessionId) && active.size >= PARK_LIMIT)
    return {kind: 'refused', message: `${PARK_LIMIT} sessions are parked already: lift one (cast wake) before parking another.`}
  const text = note === null ? null : note.trim().slice(0, PARK_NOTE_MAX)
  return {afterSeq, endedAt: null, ended: null, madeAt: now, note: text === '' ? null : text, seenAt: now, sessionId, untilId: target.id}
}

export const isParkRefusal = (p: Park | ParkRefusal): p is ParkRefusal => 'kind' in p

/** What happened to the other session since the park was made. */
export interface ParkGate {
  /** Its row is gone from the store. */
  readonly missing: boolean
  /** It was killed or dismissed (now, or at any time after the park was made). */
  readonly gone: boolean
  /** A transition from working to another state was logged after the park was made. */
  readonly rested: boolean
}

export type ParkDecision =
  | {readonly action: 'keep'}
  /** Lift the stash and log a `park_released` transition; notify. */
  | {readonly action: 'release'; readonly why: 'ready' | 'gone'}
  /** Lift the stash without a release (stale). */
  | {readonly action: 'drop'}
  /** The stash was already lifted some other way: end the park, touch nothing else. */
  | {readonly action: 'end'}

/** One park's fate at `now`, from its session's filing and its gate. */
export function decidePark(park: Park, filing: Filing | null, gate: ParkGate, now: number): ParkDecision {
  if (filing !== 'stashed' && filing !== 'hidden') return {action: 'end'}
  if (gate.missing || gate.gone) return {action: 'release', why: 'gone'}
  if (gate.rested) return {action: 'release', why: 'ready'}
  if (now - park.seenAt >= PARK_STALE_MS) return {action: 'drop'}
  return {action: 'keep'}
}
