/**
 * Actions across machines (issue 17 point 4): a teammate's `cast send / approve / deny / kill /
 * own / decide answer` on a session that runs on another machine is queued in cast_team.actions and
 * carried out by that machine's ingester, exactly once, with the same command (and so the same
 * safety rules) a local user would run, as the requester's identity. The result comes back in the
 * row; the requester waits for it (LISTEN cast_action_done, with a poll as a safety net).
 *
 * Exactly once: the executor claims the row on the server (queued -> running), records the claim
 * in the local store, runs, records the result locally, then reports it. A crash before the
 * local claim leaves it not run (reported refused, "interrupted before it ran"); a crash while it
 * ran is reported as such (never run a second time); a result not yet reported is reported on
 * the next pass.
 *
 * Who may: the requester's identity is the one its machine joined with (the server checks the
 * requesting role owns that machine row); the executor refuses unless that identity owns the
 * session or runs it. A refused action changes nothing.
 */
import type {Pool} from 'pg'

import {isOwnedBy, sameIdentity} from '../../model/ownership.js'
import {claimAction, doneAction, finishAction, markReported, unreportedActions} from '../outbox.js'
import type {Store} from '../store.js'
import {claimAction as claimServerAction, queueAction as queueServerAction, reportAction, runningActions, type TeamAction} from './calls.js'
import {pgSafe} from './safe-text.js'

export const ACTION_VERBS = ['send', 'approve', 'deny', 'kill', 'own', 'answer'] as const
export type ActionVerb = (typeof ACTION_VERBS)[number]

export interface QueuedAction {
  readonly id: number
  readonly device: string
  readonly sessionId: string
  readonly verb: ActionVerb
  readonly args: Record<string, unknown>
  readonly requestedBy: string
  readonly requestedFrom: string
}

export interface ActionOutcome {
  readonly status: 'delivered' | 'refused'
  readonly result: Record<string, unknown>
}

/** Runs one cast command as `who` on this machine; returns its exit code and output. */
export type RunCast = (argv: readonly string[], who: string) => Promise<{code: number; stdout: string; stderr: string}>

/** The cast command line that carries out an action (text after `--`: data, never a flag). */
export function commandFor(a: QueuedAction): string[] | null {
  const s = a.sessionId
  const str = (k: string): string | null => (typeof a.args[k] === 'string' ? a.args[k] : null)
  switch (a.verb) {
    case 'send': {
      const msg = str('message')
      if (msg === null) return null
      const iff = str('if')
      return ['send', s, '--json', ...(iff ? ['--if', iff] : []), '--', msg]
    }

    case 'approve':
      return ['approve', s, '--json', ...(a.args.always === true ? ['--always'] : [])]
    case 'deny': {
      const note = str('note')
      return ['deny', s, '--json', ...(note ? ['--note', note] : [])]
    }

    case 'kill':
      return ['kill', s, '--json']
    case 'own': {
      const who = str('who')
      return who ? ['own', s, who, '--json'] : null
    }

    case 'answer': {
      const card = str('card')
      const choice = str('choice')
      if (!card || !choice) return null
      const note = str('note')
      return ['decide', 'answer', card, choice, '--json', ...(note ? ['--note', note] : [])]
    }

    default:
      return null
  }
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

/** A cast_team.actions row as pg returns it (jsonb parsed, bigints as numbers: client.ts's type parser). */
interface ActionDbRow {
  readonly id: number
  readonly device: string
  readonly session_id: string
  readonly verb: string
  readonly args: Record<string, unknown> | null
  readonly requested_by: string
  readonly requested_from: string
  readonly status: string
  readonly result: Record<string, unknown> | null
}

function fromTeamAction(a: TeamAction): QueuedAction {
  return {
    args: a.args,
    device: a.device,
    id: a.id,
    requestedBy: a.requestedBy,
    requestedFrom: a.requestedFrom,
    sessionId: a.sessionId,
    verb: a.verb as ActionVerb,
  }
}

async function report(pool: Pool, store: Store, id: number, o: ActionOutcome): Promise<void> {
  await reportAction(pool, id, o.status, pgSafe(o.result))
  markReported(store, id)
}

/**
 * One pass of the executor for this device: report what was carried out but not reported, settle
 * rows a crash left running, then claim and carry out what is queued, in order.
 */
export async function carryOutActions(store: Store, pool: Pool, device: string, run: RunCast, now: () => number): Promise<number> {
  for (const d of unreportedActions(store)) await report(pool, store, d.actionId, {result: d.result, status: d.status})
  for (const r of await runningActions(pool, device)) {
    const a = fromTeamAction(r)
    const local = doneAction(store, a.id)
    if (local && local.status !== 'running') continue // reported above
    if (!local) claimAction(store, a.id, now())
    const why = local
      ? 'the machine stopped while carrying it out; it may or may not have taken effect, and is not run again'
      : 'the machine stopped before carrying it out; nothing was done'
    finishAction(store, a.id, 'refused', {error: why, interrupted: true}, now())
    await report(pool, store, a.id, {result: {error: why, interrupted: true}, status: 'refused'})
  }

  const list = (await claimServerAction(pool, device, 20)).map(fromTeamAction)
  for (const a of list) {
    if (!claimAction(store, a.id, now())) continue // carried out before: its result is reported above
    const outcome = await carryOut(store, a, run)
    finishAction(store, a.id, outcome.status, outcome.result, now())
    await report(pool, store, a.id, outcome)
  }

  return list.length
}

async function carryOut(store: Store, a: QueuedAction, run: RunCast): Promise<ActionOutcome> {
  const why = refusal(store, a.sessionId, a.requestedBy)
  if (why) return {result: {error: why, exit: 5}, status: 'refused'}
  const argv = commandFor(a)
  if (!argv) return {result: {error: `"${a.verb}" with these arguments is not an action cast carries out`, exit: 2}, status: 'refused'}
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

// ---------------------------------------------------------------- the requesting side

export interface TeamSessionRef {
  readonly id: string
  readonly device: string
  readonly nativeId: string
}

/** Only rows whose machine's role is an admitted member (what the views show: reader.ts). */
const ADMITTED = `EXISTS (SELECT 1 FROM cast_team.machines m JOIN cast_team.members p ON p.role = m.role WHERE m.device = cast_team.sessions.device)`

/** Sessions on other machines whose id or native id starts with `query`. */
export async function findRemote(pool: Pool, query: string, notDevice: string): Promise<TeamSessionRef[]> {
  const q = query.trim().toLowerCase()
  const r = await pool.query<{id: string; device: string; native_id: string | null}>(
    `SELECT id, device, summary ->> 'native_id' AS native_id FROM cast_team.sessions
      WHERE device <> $2 AND (id LIKE $1 || '%' OR lower(summary ->> 'native_id') LIKE $1 || '%') AND ${ADMITTED} ORDER BY id LIMIT 10`,
    [q.replace(/[%_\\]/g, (c) => '\\' + c), notDevice],
  )
  return r.rows.map((x) => ({device: String(x.device), id: String(x.id), nativeId: String(x.native_id)}))
}

/** The session on another machine whose open decision card starts with `card`. */
export async function findRemoteCard(pool: Pool, card: string, notDevice: string): Promise<(TeamSessionRef & {card: string})[]> {
  const r = await pool.query<{id: string; device: string; native_id: string | null; card: string}>(
    `SELECT id, device, summary ->> 'native_id' AS native_id, summary -> 'decision' ->> 'id' AS card FROM cast_team.sessions
      WHERE device <> $2 AND summary -> 'decision' ->> 'id' LIKE $1 || '%' AND ${ADMITTED} LIMIT 10`,
    [card.trim().replace(/[%_\\]/g, (c) => '\\' + c), notDevice],
  )
  return r.rows.map((x) => ({card: String(x.card), device: String(x.device), id: String(x.id), nativeId: String(x.native_id)}))
}

/** Queue an action on the server (cast_team.queue_action: requested_by is this role's bound identity). */
export async function queueAction(
  pool: Pool,
  a: {
    device: string
    sessionId: string
    verb: ActionVerb
    args: Record<string, unknown>
    requestedFrom: string
    expiresAt: Date | null
    sig?: string | null
    uid?: string
  },
): Promise<number> {
  const {randomUUID} = await import('node:crypto')
  return queueServerAction(pool, {
    args: pgSafe(a.args),
    device: a.device,
    expiresAt: a.expiresAt,
    requestedFrom: a.requestedFrom,
    sessionId: a.sessionId,
    sig: a.sig ?? null,
    uid: a.uid ?? randomUUID(),
    verb: a.verb,
  })
}

export interface ActionState {
  readonly id: number
  readonly status: 'queued' | 'running' | 'delivered' | 'refused'
  readonly result: Record<string, unknown> | null
}

export async function actionState(pool: Pool, id: number): Promise<ActionState> {
  const r = await pool.query<Pick<ActionDbRow, 'id' | 'result' | 'status'>>(
    'SELECT id, status, result FROM cast_team.actions WHERE id = $1',
    [id],
  )
  const row = r.rows[0]
  return {id, result: row?.result ?? null, status: String(row?.status ?? 'queued') as ActionState['status']}
}

/** Wait for the action's result up to `timeoutMs`; the last state seen (maybe still queued). */
export async function waitForAction(url: string, pool: Pool, id: number, timeoutMs: number): Promise<ActionState> {
  const {openClient} = await import('./client.js')
  const deadline = Date.now() + timeoutMs
  let listener: Awaited<ReturnType<typeof openClient>> | null = null
  let wake: (() => void) | null = null
  try {
    listener = await openClient(url)
    listener.on('notification', (n) => {
      if (n.payload === String(id)) wake?.()
    })
    listener.on('error', () => {})
    await listener.query('LISTEN cast_action_done')
  } catch {
    listener = null // polling alone still gets there
  }

  try {
    for (;;) {
      const s = await actionState(pool, id)
      if (s.status === 'delivered' || s.status === 'refused') return s
      const left = deadline - Date.now()
      if (left <= 0) return s
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 1000))
        wake = () => {
          clearTimeout(t)
          resolve()
        }
      })
      wake = null
    }
  } finally {
    await listener?.end().catch(() => {})
  }
}
