/**
 * Attention inside Needs Input, and the quiet band (docs/contract.md §3.5, seed 002). Pure.
 */
import {TIME_LIMITS} from './types.js'
import type {Reason, WorkState} from './types.js'

/** Reasons that jump the queue, in order: what a second of attention buys. The rest follow. */
export const REASON_PRIORITY = ['approval', 'error', 'question'] as const satisfies readonly Reason[]

/** Rank of a reason in the Needs Input order: 0 for approval, 1 error, 2 question, 3 the rest. */
export function reasonRank(reason: Reason): number {
  const rank = (REASON_PRIORITY as readonly Reason[]).indexOf(reason)
  return rank === -1 ? REASON_PRIORITY.length : rank
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
