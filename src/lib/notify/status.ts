/**
 * `cast status`: one short line for tmux status-right or a shell prompt ("3 need you · 1 quiet").
 * Reads the store only (the daemon keeps it current), with the lean query of
 * src/core/store/status.ts; bin/run.js runs it without loading oclif so a status bar refreshing
 * every few seconds costs next to nothing (bench/status.js measures it).
 *
 * "Need you" counts the demands of my inbox: sessions in Questions (an open question, a
 * permission prompt, a decision card) or in needs_input, not filed away (stashed, snoozed,
 * dismissed, killed) and not subagents. Quiet counts working sessions silent for 10 minutes.
 */
import {quietAt} from '../../core/model/attention.js'
import {inboxLeavesAt, inInbox} from '../../core/model/ownership.js'
import {isFiledBucket} from '../../core/model/tally.js'
import type {Bucket, Reason} from '../../core/model/types.js'
import {statusRows} from '../../core/store/status.js'
import type {Store} from '../../core/store/store.js'

export interface StatusCounts {
  need: number
  questions: number
  needs_input: number
  quiet: number
  working: number
  done: number
}

/**
 * Reasons a needs_input session waits with that outlive the recency window (true), as
 * core/model/view.ts outlivesRecency reads them from the facts. Every reason says.
 */
const OUTLIVES: Readonly<Record<Reason, boolean>> = {
  approval: true,
  declared_blocked: true,
  blocked_unclear: true,
  stalled: true,
  question: true,
  background_work: false,
  child_producing: false,
  dead: false,
  declared_done: false,
  declared_dormant: false,
  delivered: false,
  empty: false,
  error: false,
  hibernated: false,
  killed: false,
  producing: false,
  queued: false,
  settled: false,
  snooze_expired: false,
  snoozed: false,
  trigger: false,
  turn_pending: false,
  unresponsive: false,
  unverified_claim: false,
  user_verdict: false,
}

export function statusCounts(store: Store, me: string, now: number, recencyMs?: number): StatusCounts {
  return statusSnapshot(store, me, now, recencyMs).counts
}

/**
 * The counts, and the first moment after `now` at which one can change with time alone (a working
 * session going quiet, a session leaving the recency window), or null: how long a cached line
 * holds (src/lib/notify/status-cache.ts).
 */
export function statusSnapshot(
  store: Store,
  me: string,
  now: number,
  recencyMs?: number,
): {counts: StatusCounts; nextChangeAt: number | null} {
  const c: StatusCounts = {done: 0, need: 0, needs_input: 0, questions: 0, quiet: 0, working: 0}
  let next: number | null = null
  const later = (t: number | null): void => {
    if (t !== null && t > now && (next === null || t < next)) next = t
  }

  for (const r of statusRows(store)) {
    const bucket = (r.bucket ?? r.state ?? 'idle') as Bucket
    if (r.parentId !== null || bucket === 'folded' || isFiledBucket(bucket) || bucket === 'hidden') continue
    const outlives = r.pinned || bucket === 'questions' || (r.state === 'needs_input' && r.reason !== null && OUTLIVES[r.reason] === true)
    const inbox = {all: outlives, lastActivityAt: r.lastActivityAt ?? r.firstSeenAt, me, owners: r.owners, recencyMs, runner: r.runner}
    if (!inInbox({...inbox, now})) continue
    later(inboxLeavesAt(inbox))
    if (bucket === 'questions') c.questions++
    if (r.state === 'needs_input') c.needs_input++
    if (bucket === 'questions' || r.state === 'needs_input') c.need++
    if (r.state === 'working') {
      c.working++
      const at = quietAt({lastOutputAt: r.lastOutputAt, state: 'working', workingSince: r.workingSince})
      if (at !== null && now >= at) c.quiet++
      else later(at)
    }

    if (r.state === 'done') c.done++
  }

  return {counts: c, nextChangeAt: next}
}

export {renderStatus, staleMark, UNSYNCED} from './status-cache.js'
