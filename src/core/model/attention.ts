/**
 * Attention inside Needs Input, and the quiet band (docs/contract.md §3.5, seed 002). Pure.
 */
import {TIME_LIMITS} from './types.js'
import type {Reason, WorkState} from './types.js'

/** Reasons that jump the queue, in order: what a second of attention buys. The rest follow. */
export const REASON_PRIORITY = ['approval', 'error', 'question'] as const satisfies readonly Reason[]

/**
 * Rank of every reason in the Needs Input order: 0 for approval, 1 error, 2 question, 3 the rest.
 * A full Record, so a reason added to the model does not compile until it is ranked here.
 */
const REASON_RANK: Readonly<Record<Reason, number>> = {
  approval: 0,
  error: 1,
  question: 2,
  background_work: 3,
  child_producing: 3,
  dead: 3,
  declared_blocked: 3,
  declared_done: 3,
  declared_dormant: 3,
  delivered: 3,
  empty: 3,
  hibernated: 3,
  killed: 3,
  producing: 3,
  queued: 3,
  settled: 3,
  stalled: 3,
  blocked_unclear: 3,
  snooze_expired: 3,
  snoozed: 3,
  trigger: 3,
  turn_pending: 3,
  unresponsive: 3,
  unverified_claim: 3,
  user_verdict: 3,
}

/** Rank of a reason in the Needs Input order: 0 for approval, 1 error, 2 question, 3 the rest. */
export function reasonRank(reason: Reason): number {
  // A reason this build does not know (a store written by a newer cast) ranks with the rest.
  return Object.hasOwn(REASON_RANK, reason) ? REASON_RANK[reason] : REASON_PRIORITY.length
}

/**
 * The ask a session waiting with this reason puts to the person (a permission prompt, a question,
 * an error), or null: it waits without one. The notifier names it (notify.ts). A full Record: a
 * reason added to the model does not compile until it says whether it asks.
 */
export const ASK_OF_REASON: Readonly<Record<Reason, 'approval' | 'question' | 'error' | null>> = {
  approval: 'approval',
  error: 'error',
  question: 'question',
  background_work: null,
  child_producing: null,
  dead: null,
  declared_blocked: null,
  declared_done: null,
  declared_dormant: null,
  delivered: null,
  empty: null,
  hibernated: null,
  killed: null,
  producing: null,
  queued: null,
  settled: null,
  stalled: null,
  blocked_unclear: null,
  snooze_expired: null,
  snoozed: null,
  trigger: null,
  turn_pending: null,
  unresponsive: null,
  unverified_claim: null,
  user_verdict: null,
}

export interface AttentionRow {
  readonly reason: Reason
  /** When the session started waiting on the user; null sorts last within its reason. */
  readonly waitingSince: number | null
}

/** Sort comparator for needs_input rows: by reason rank, then the longest wait first. */
export function compareAttention(a: AttentionRow, b: AttentionRow): number {
  const byReason = reasonRank(a.reason) - reasonRank(b.reason)
  if (byReason !== 0) return byReason
  if (a.waitingSince === b.waitingSince) return 0
  if (a.waitingSince === null) return 1
  if (b.waitingSince === null) return -1
  return a.waitingSince - b.waitingSince
}

export interface QuietInput {
  readonly state: WorkState
  /** Last time the agent wrote output. */
  readonly lastOutputAt: number | null
  /** When the current working stint began. */
  readonly workingSince: number | null
}

/**
 * When a working session turns quiet: QUIET_AFTER_MS after the later of its last output and the
 * start of its current working stint. Null when it is not working or there is nothing to measure from.
 */
export function quietAt({lastOutputAt, state, workingSince}: QuietInput): number | null {
  if (state !== 'working') return null
  const since = lastOutputAt === null ? workingSince : workingSince === null ? lastOutputAt : Math.max(lastOutputAt, workingSince)
  return since === null ? null : since + TIME_LIMITS.QUIET_AFTER_MS
}

/** A working session silent for QUIET_AFTER_MS or more. Not a demand: never counted as needs_input. */
export function isQuiet(input: QuietInput, now: number): boolean {
  const at = quietAt(input)
  return at !== null && now >= at
}

/**
 * The earliest of `times` strictly after `now`, or null: folds a classification's nextCheckAt and
 * a row's quietAt into the one timer the watcher schedules.
 */
export function earliestAfter(now: number, times: readonly (number | null | undefined)[]): number | null {
  let earliest: number | null = null
  for (const at of times) {
    if (at === null || at === undefined || at <= now) continue
    if (earliest === null || at < earliest) earliest = at
  }

  return earliest
}
