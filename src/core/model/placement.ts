/**
 * placeSession: which bucket of the inbox a session sits in (docs/contract.md §3.6). Pure.
 *
 * Filing first (dismissed, hidden, stashed, snoozed, killed), then asking (questions), then pin,
 * then new, then the work state. A stash comes back by itself when the session stalls or a
 * trigger fires into it; a hidden stash only on an ask.
 */
import {currentDeclaration} from './work-state.js'
import type {Bucket, ChildSummary, Classification, Reason, SessionFacts, SessionRecords} from './types.js'

export interface PlacementInput {
  readonly classification: Pick<Classification, 'reason' | 'state'>
  readonly facts: SessionFacts
  readonly records: SessionRecords
  readonly children: ChildSummary
  /** A subagent child: folded under its parent, never a row of its own. */
  readonly isChild: boolean
}

export const ASKS = ['question', 'approval', 'decision', 'child_ask'] as const
export type Ask = (typeof ASKS)[number]

export const STALLS = ['dead', 'declared_blocked', 'trigger_fired'] as const
export type Stall = (typeof STALLS)[number]

/**
 * The bucket a reason files the session in whatever else holds (rules 1 and 2: killed, snoozed),
 * or null: the order below decides. Every reason says, so a new one does not compile until it does.
 */
const FILED_BY_REASON: Readonly<Record<Reason, 'snoozed' | 'killed' | null>> = {
  killed: 'killed',
  snoozed: 'snoozed',
  approval: null,
  background_work: null,
  child_producing: null,
  dead: null,
  declared_blocked: null,
  declared_done: null,
  declared_dormant: null,
  delivered: null,
  empty: null,
  error: null,
  hibernated: null,
  producing: null,
  question: null,
  queued: null,
  settled: null,
  stalled: null,
  blocked_unclear: null,
  snooze_expired: null,
  trigger: null,
  turn_pending: null,
  unresponsive: null,
  unverified_claim: null,
  user_verdict: null,
}

export function placeSession(input: PlacementInput): Bucket {
  const {classification, facts, isChild, records} = input
  if (isChild) return 'folded'
  if (records.filing === 'dismissed') return 'dismissed'
  if (records.filing === 'hidden' && releaseCause(input) === null) return 'hidden'
  if (records.filing === 'stashed' && releaseCause(input) === null) return 'stashed'
  const filed = FILED_BY_REASON[classification.reason] ?? null
  if (filed !== null) return filed
  if (openAsks(input).length > 0) return 'questions'
  if (records.pinned) return 'pinned'
  if (facts.messages === 0) return 'new'
  return classification.state
}

/** A stash or hidden stash that has come back for good: the store should clear the filing. */
export function shouldReleaseFiling(input: PlacementInput): boolean {
  return releaseCause(input) !== null
}

/**
 * What brings a stash (or hidden stash) back, for `cast explain`; null when it stays filed or the
 * session is not stashed. Only what happened after the stash counts: a session stashed while it
 * was already asking stays stashed until a new ask.
 */
export function releaseCause(input: PlacementInput): Ask | Stall | null {
  const {filing} = input.records
  if (filing !== 'stashed' && filing !== 'hidden') return null
  const since = input.records.filedAt
  const ask = opensSince(input, since)[0]
  if (ask !== undefined) return ask
  if (filing === 'hidden') return null
  return stallsSince(input, since)[0] ?? null
}

/**
 * The open asks that put a session in Questions: an open question, a permission prompt, an open
 * `cast decide` card, a child's open ask. A user verdict covers the asks that were open when it
 * was given (the user saw them); a newer ask still counts.
 */
export function openAsks(input: PlacementInput): Ask[] {
  const {classification, records} = input
  const verdictAt = classification.reason === 'user_verdict' && records.verdict !== null ? records.verdict.at : null
  return opensSince(input, verdictAt)
}

/** Asks open now that opened after `since` (all open asks when `since` is null). */
function opensSince({children, facts, records}: PlacementInput, since: number | null): Ask[] {
  const asks: Ask[] = []
  if (facts.question !== null && after(facts.question.at, since)) asks.push('question')
  if (facts.approval !== null && after(facts.approval.at, since)) asks.push('approval')
  if (records.openDecision && after(records.openDecisionAt, since)) asks.push('decision')
  if (children.asking && after(children.askingSince, since)) asks.push('child_ask')
  return asks
}

/** Stalls that bring a plain stash back, when they happened after `since`. */
function stallsSince({classification, facts, records}: PlacementInput, since: number | null): Stall[] {
  const stalls: Stall[] = []
  // Dead after the stash: the process showed life (heartbeat, else transcript activity) after it.
  if (classification.reason === 'dead' && after(facts.process?.heartbeatAt ?? facts.lastActivityAt, since)) stalls.push('dead')
  const declaration = currentDeclaration(facts, records)
  if (declaration?.status === 'blocked' && after(declaration.at, since)) stalls.push('declared_blocked')
  // A trigger fires into a session as a send (scheduled deliveries go through `cast send`).
  if (records.lastSendAt !== null && since !== null && records.lastSendAt > since) stalls.push('trigger_fired')
  return stalls
}

/** Did something at `at` happen after `since`? An unknown time counts as new: never hide an ask. */
function after(at: number | null | undefined, since: number | null): boolean {
  if (since === null || at === null || at === undefined) return true
  return at > since
}
