/**
 * The executing machine: carries out the actions teammates queued for its sessions, exactly once,
 * through the same verb runner (src/lib/verbs/index.ts, and so the same safety rules) a local user
 * runs, with the requester's identity as the runner's `me`.
 *
 * Before anything runs, the request must be what its requester signed (src/lib/team/protocol.ts
 * verifyAction: this machine's own trust list, not the server, says whose key that is), must not
 * have been carried out here before (its uid, kept in the local store), and the requester must own
 * or run the session in the local store. A refused action is reported with its reason and changes
 * nothing.
 *
 * Exactly once: the action is claimed on the server (queued -> running), then in the local store,
 * then run; its result is recorded locally, then reported. A crash before the local claim
 * reports "nothing was done"; a crash while it ran is reported as such (never run a second time);
 * a result not yet reported is reported on the next pass.
 */
import type {Pool} from 'pg'

import {isOwnedBy, sameIdentity} from '../../core/model/ownership.js'
import {claimAction, doneAction, finishAction, markReported, seenRequest, unreportedActions} from '../../core/store/outbox.js'
import type {Store} from '../../core/store/store.js'
import {claimAction as claimOnServer, reportAction, runningActions, type TeamAction} from '../../core/store/team/calls.js'
import {machineKeys} from '../../core/store/team/machines.js'
import {pgSafe} from '../../core/store/team/safe-text.js'
import {readTrust} from './keys.js'
import {refusalLine, standing} from './standing.js'
import {type Pinned, type QueuedAction, verifyAction} from './protocol.js'

export interface ActionOutcome {
  readonly status: 'delivered' | 'refused'
  readonly result: Record<string, unknown>
}

/**
 * Carries out one action as `who` on this machine, through the verb runner, acting locally only.
 * The runner's own is src/lib/verbs/team-runner.ts castRunner, handed in by the command that starts
 * the team's loops (the team sits below the verbs, which ask it for remote sessions).
 */
export type RunCast = (store: Store, a: Pick<QueuedAction, 'verb' | 'sessionId' | 'args'>, who: string) => Promise<ActionOutcome>

/** Why `who` may not act on the session here, or null when they may (they own it or run it). */
export function refusal(store: Store, sessionId: string, who: string): string | null {
  const row = store.loadSessions([sessionId])[0]
  if (!row) return `no session ${sessionId.slice(0, 7)} on this machine`
  if (isOwnedBy(row.records.owners, who)) return null
  if (row.runner !== null && sameIdentity(row.runner, who)) return null
  const owners = row.records.owners.length > 0 ? `owned by ${row.records.owners.join(', ')}` : 'unowned'
  return `${who} neither owns nor runs ${row.id.slice(0, 7)} (${owners}, run by ${row.runner ?? 'nobody known'})`
}

export interface ExecutorContext {
  readonly store: Store
  readonly pool: Pool
  readonly device: string
  /** CAST_HOME: where this machine's trust list is (src/lib/team/keys.ts). */
  readonly home: string
  readonly run: RunCast
  /** The clock local records are stamped with (CAST_NOW in tests); expiry is checked on the real one. */
  readonly now: () => number
}

function queued(a: TeamAction): QueuedAction {
  const exp = a.expiresAt === null ? null : new Date(a.expiresAt).getTime()
  return {...a, expiresAt: exp !== null && Number.isFinite(exp) ? exp : null}
}

async function report(x: ExecutorContext, id: number, o: ActionOutcome): Promise<void> {
  await reportAction(x.pool, id, o.status, pgSafe(o.result))
  markReported(x.store, id)
}

/**
 * One pass of the executor for this device: report what was carried out but not reported, settle
 * rows a crash left running, then claim, check and carry out what is queued, in order.
 */
export async function carryOutActions(x: ExecutorContext): Promise<number> {
  const {store, now} = x
  for (const d of unreportedActions(store)) await report(x, d.actionId, {result: d.result, status: d.status})
  for (const a of await runningActions(x.pool, x.device)) {
    const local = doneAction(store, a.id)
    if (local && local.status !== 'running') continue // reported above
    if (!local) claimAction(store, a.id, now())
    const why = local
      ? 'the machine stopped while carrying it out; it may or may not have taken effect, and is not run again'
      : 'the machine stopped before carrying it out; nothing was done'
    finishAction(store, a.id, 'refused', {error: why, interrupted: true}, now())
    await report(x, a.id, {result: {error: why, interrupted: true}, status: 'refused'})
  }

  const list = (await claimOnServer(x.pool, x.device, 20)).map(queued)
  if (list.length === 0) return 0
  const keys = new Map((await machineKeys(x.pool)).map((m) => [m.device, m.pubkey]))
  let trust: Map<string, Pinned> | Error
  try {
    trust = readTrust(x.home)
  } catch (error) {
    trust = error as Error
  }

  for (const a of list) {
    if (doneAction(store, a.id)) continue // carried out before: its result is reported above
    const pinned = trust instanceof Error ? null : (trust.get(a.requestedFrom) ?? null)
    const verified =
      trust instanceof Error
        ? trust.message
        : verifyAction(a, {device: x.device, now: Date.now(), pinned, sameIdentity, serverKey: keys.get(a.requestedFrom) ?? null})
    // Checked as it runs, not only when queued: the requester may have been removed since.
    const why = verified === null ? await standing(x.pool, a) : refusalLine(verified, a, pinned)
    // The request's uid is kept only for a request that verified: a forged copy cannot spend it.
    const replay = why === null && (seenRequest(store, a.uid!) || !claimAction(store, a.id, now(), a.uid))
    if (why !== null || replay) {
      const error = why ?? `request ${a.uid} was carried out here before (action ${a.id} replays it); nothing was done`
      claimAction(store, a.id, now())
      finishAction(store, a.id, 'refused', {error, exit: 5}, now())
      await report(x, a.id, {result: {error, exit: 5}, status: 'refused'})
      continue
    }

    const outcome = await carryOut(store, a, x.run)
    finishAction(store, a.id, outcome.status, outcome.result, now())
    await report(x, a.id, outcome)
  }

  return list.length
}

async function carryOut(store: Store, a: QueuedAction, run: RunCast): Promise<ActionOutcome> {
  const why = refusal(store, a.sessionId, a.requestedBy)
  if (why) return {result: {error: why, exit: 5}, status: 'refused'}
  return run(store, a, a.requestedBy)
}
