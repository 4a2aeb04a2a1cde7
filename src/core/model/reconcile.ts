/**
 * planReconcile: what one session's row becomes at `now`, from the row as stored and its inputs
 * (docs/contract.md §3.4–§3.6). Pure: the store loads the inputs, applies the plan and logs the event.
 *
 * The steps, in order: classify; lift a stash that has come back for good (then classify again,
 * since the filing is an input); place in a bucket; compare with what is stored; when state,
 * reason or bucket moved, say when the state began, when the work began, and which event the
 * transitions log gets (`new` on first sight, `gone` on entering killed or dismissed, else
 * `transition`).
 */
import {placeSession, shouldReleaseFiling} from './placement.js'
import type {
  Bucket,
  ChildSummary,
  Classification,
  Filing,
  Reason,
  SessionFacts,
  SessionRecords,
  TransitionEvent,
  WorkState,
} from './types.js'
import {classifyWorkState} from './work-state.js'

/** The placement columns of the sessions row as stored; `state` null: never reconciled (first sight). */
export interface StoredPlacement {
  readonly state: WorkState | null
  readonly reason: Reason | null
  readonly bucket: Bucket | null
  readonly rule: number | null
  readonly nextCheckAt: number | null
  readonly workingSince: number | null
}

export interface ReconcileInput {
  readonly facts: SessionFacts
  readonly records: SessionRecords
  readonly children: ChildSummary
  /** A subagent child (folded under its parent). */
  readonly isChild: boolean
  readonly stored: StoredPlacement
}

export type ReconcileEvent = TransitionEvent

export interface ReconcilePlan {
  readonly classification: Classification
  readonly bucket: Bucket
  /** Clear the records' filing (a stash or hidden stash came back for good). */
  readonly releaseFiling: boolean
  /**
   * `none`: nothing to write; `check`: only rule and next_check_at moved; `row`: state, reason or
   * bucket moved, so the row is rewritten and `event` logged.
   */
  readonly write: 'none' | 'check' | 'row'
  /** The new state_since when the state changed; null keeps the stored one. */
  readonly stateSince: number | null
  /** working_since for a `row` write: when the current stretch of work began, null when not working. */
  readonly workingSince: number | null
  /** The transitions row's event for a `row` write; null otherwise. */
  readonly event: ReconcileEvent | null
}

export function planReconcile(input: ReconcileInput, now: number): ReconcilePlan {
  const {children, facts, isChild, stored} = input
  let records = input.records
  let classification = classifyWorkState({children, facts, records}, now)
  // A stash lifts for good when the session stalls or asks (docs/contract.md §3.6).
  const releaseFiling = isStash(records.filing) && shouldReleaseFiling({children, classification, facts, isChild, records})
  if (releaseFiling) {
    records = {...records, filedAt: null, filing: null}
    classification = classifyWorkState({children, facts, records}, now)
  }

  const bucket = placeSession({children, classification, facts, isChild, records})
  const base = {bucket, classification, releaseFiling}
  if (stored.state === classification.state && stored.reason === classification.reason && stored.bucket === bucket) {
    const moved = stored.rule !== classification.rule || stored.nextCheckAt !== classification.nextCheckAt
    return {...base, event: null, stateSince: null, workingSince: stored.workingSince, write: moved ? 'check' : 'none'}
  }

  const firstSight = stored.state === null
  const stateChanged = stored.state !== classification.state
  return {
    ...base,
    event: eventFor(firstSight, stored.bucket, bucket),
    stateSince: stateChanged ? (firstSight ? (facts.lastActivityAt ?? now) : now) : null,
    workingSince: workingSince(classification.state, stateChanged, firstSight, facts, stored.workingSince, now),
    write: 'row',
  }
}

const isStash = (filing: Filing | null): boolean => filing === 'stashed' || filing === 'hidden'

/**
 * When the current stretch of work began: on first sight the turn's start (else the last
 * activity), on entering working now, while working what was stored; null when not working.
 */
export function workingSince(
  state: WorkState,
  stateChanged: boolean,
  firstSight: boolean,
  facts: Pick<SessionFacts, 'lastActivityAt' | 'turnStartedAt'>,
  stored: number | null,
  now: number,
): number | null {
  if (state !== 'working') return null
  if (!stateChanged) return stored ?? now
  if (firstSight) return facts.turnStartedAt ?? facts.lastActivityAt ?? now
  return now
}

/** The log's event: `new` on first sight, `gone` when the session enters killed or dismissed. */
export function eventFor(firstSight: boolean, fromBucket: Bucket | null, bucket: Bucket): ReconcileEvent {
  if (firstSight) return 'new'
  if ((bucket === 'killed' || bucket === 'dismissed') && fromBucket !== bucket) return 'gone'
  return 'transition'
}

/**
 * What a parent sees of its subagent children: one is producing (working), and the oldest open
 * question or permission prompt among them.
 */
export function summarizeChildren(
  kids: readonly {readonly state: string | null; readonly facts: Pick<Partial<SessionFacts>, 'approval' | 'question'>}[],
): ChildSummary {
  let producing = false
  let askingSince: number | null = null
  for (const k of kids) {
    if (k.state === 'working') producing = true
    for (const block of [k.facts.question, k.facts.approval]) {
      if (block) askingSince = askingSince === null ? block.at : Math.min(askingSince, block.at)
    }
  }

  return {asking: askingSince !== null, askingSince, producing}
}
