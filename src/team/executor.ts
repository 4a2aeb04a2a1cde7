/**
 * The executing machine: carries out the actions teammates queued for its sessions, exactly once,
 * with the same cast command (and so the same safety rules) a local user would run, as the
 * requester's identity.
 *
 * Before anything runs, the request must be what its requester signed (src/team/protocol.ts
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
import {spawn} from 'node:child_process'
import type {Pool} from 'pg'

import {isOwnedBy, sameIdentity} from '../core/model/ownership.js'
import {claimAction, doneAction, finishAction, markReported, seenRequest, unreportedActions} from '../core/store/outbox.js'
import type {Store} from '../core/store/store.js'
import {claimAction as claimOnServer, reportAction, runningActions, type TeamAction} from '../core/store/team/calls.js'
import {machineKeys} from '../core/store/team/machines.js'
import {pgSafe} from '../core/store/team/safe-text.js'
import {readTrust} from './keys.js'
import {refusalLine, standing} from './standing.js'
import {ArgError, commandFor, type Pinned, type QueuedAction, verifyAction} from './protocol.js'

type Env = Readonly<Record<string, string | undefined>>

export interface ActionOutcome {
  readonly status: 'delivered' | 'refused'
  readonly result: Record<string, unknown>
}

/** Runs one cast command as `who` on this machine; returns its exit code and output. */
export type RunCast = (argv: readonly string[], who: string) => Promise<{code: number; stdout: string; stderr: string}>

/** Runs cast itself (this same build) as `who`, acting locally only. */
export function castRunner(env: Env): RunCast {
  return (argv, who) =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [process.argv[1]!, ...argv], {
        env: {...env, CAST_TEAM_LOCAL: '1', CAST_USER: who},
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (c) => (stdout += String(c)))
      child.stderr.on('data', (c) => (stderr += String(c)))
      const t = setTimeout(() => child.kill('SIGKILL'), 120_000)
      child.on('close', (code) => {
        clearTimeout(t)
        resolve({code: code ?? 1, stderr, stdout})
      })
      child.on('error', (e) => {
        clearTimeout(t)
        resolve({code: 1, stderr: e.message, stdout})
      })
    })
}

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
  /** CAST_HOME: where this machine's trust list is (src/team/keys.ts). */
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
  let argv: string[]
  try {
    argv = commandFor(a.verb, a.sessionId, a.args)
  } catch (error) {
    if (!(error instanceof ArgError)) throw error
    return {result: {error: `${a.verb}: ${error.message}; nothing was done`, exit: 2}, status: 'refused'}
  }

  const r = await run(argv, a.requestedBy)
  let output: unknown = null
  try {
    output = JSON.parse(r.stdout)
  } catch {
    output = null
  }

  if (r.code === 0) return {result: {exit: 0, output}, status: 'delivered'}
  const error =
    (output as {error?: {message?: string}} | null)?.error?.message ??
    r.stderr.trim().split('\n').filter(Boolean).at(-1) ??
    `exit ${r.code}`
  return {result: {error: error.replace(/^\s*[›»]?\s*Error:\s*/, ''), exit: r.code, output}, status: 'refused'}
}
