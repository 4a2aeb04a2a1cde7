/**
 * Wiring of the team store for commands and the daemon: is this store in a team, where is the
 * server, and the remote branch of the verbs. `pg` is imported only once a team is in use.
 */
import {spawn} from 'node:child_process'

import {teamJoin, type TeamJoin} from '../outbox.js'
import type {SessionRow, Store} from '../store.js'
import type {ActionState, ActionVerb, RunCast} from './actions.js'
import {cleanError, type TeamTarget, teamTarget} from './client.js'

type Env = Readonly<Record<string, string | undefined>>
type ConfigLike = Parameters<typeof teamTarget>[1]

export interface TeamContext {
  readonly target: TeamTarget
  readonly join: TeamJoin
}

/** The team this store joined and its server, or null (no team: nothing to do, nothing imported). */
export function teamContext(store: Store, env: Env, config: ConfigLike): TeamContext | null {
  const join = teamJoin(store)
  if (!join) return null
  const target = teamTarget(env, config)
  if (!target) return null
  return {join, target}
}

/** Runs cast itself (this same build) as `who`, acting locally only: the executor of team actions. */
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

/** Start publishing and carrying out actions next to a live ingester (cast daemon). */
export async function startTeamSync(
  store: Store,
  env: Env,
  config: ConfigLike,
  o: {device: string; me: string; clock: () => number; log: (m: string) => void},
): Promise<{kick(): void; stop(): Promise<void>; readonly passes: number} | null> {
  const ctx = teamContext(store, env, config)
  if (!ctx) return null
  const {TeamSync} = await import('./sync.js')
  const sync = new TeamSync(store, {clock: o.clock, device: o.device, log: o.log, run: castRunner(env), url: ctx.target.url, who: o.me})
  await sync.start()
  return sync
}

/**
 * Teammates' sessions for a read (feed, --team, the inbox), or [] without a team. An unreachable
 * server is said once on stderr and the local rows stand alone.
 */
export async function teamRows(
  store: Store,
  env: Env,
  config: ConfigLike,
  device: string,
  warn: (m: string) => void,
): Promise<SessionRow[]> {
  const ctx = teamContext(store, env, config)
  if (!ctx) return []
  const {openPool} = await import('./client.js')
  const {remoteRows} = await import('./reader.js')
  const pool = await openPool(ctx.target.url, {connectTimeoutMs: 2000, max: 1})
  try {
    return await remoteRows(pool, device)
  } catch (error) {
    warn(`the team store is unreachable (${cleanError(error, ctx.target.url)}): showing this machine's sessions only`)
    return []
  } finally {
    await pool.end().catch(() => {})
  }
}

export interface RemoteRequest {
  readonly verb: ActionVerb
  /** A session id/prefix, or for "answer" a card id/prefix. */
  readonly query: string
  readonly args: Record<string, unknown>
}

export interface RemoteOutcome {
  readonly action_id: number
  readonly device: string
  readonly session: string
  readonly verb: ActionVerb
  readonly status: ActionState['status']
  readonly result: Record<string, unknown> | null
  readonly timed_out: boolean
}

export class RemoteError extends Error {
  constructor(
    message: string,
    readonly exit: number,
  ) {
    super(message)
  }
}

/**
 * The remote branch of a verb: null when the session (or card) is this machine's or unknown to
 * the team (the local path handles it). Otherwise the action is queued for the machine it runs
 * on and, unless noWait, waited for up to timeoutMs.
 */
export async function remoteRequest(
  store: Store,
  env: Env,
  config: ConfigLike,
  me: string,
  device: string,
  req: RemoteRequest,
  o: {noWait: boolean; timeoutMs: number; isLocal: () => boolean},
): Promise<RemoteOutcome | null> {
  if (env.CAST_TEAM_LOCAL === '1') return null
  const ctx = teamContext(store, env, config)
  if (!ctx) return null
  if (o.isLocal()) return null
  const {openPool} = await import('./client.js')
  const actions = await import('./actions.js')
  const pool = await openPool(ctx.target.url, {max: 1})
  try {
    let found: {id: string; device: string; card?: string}[]
    try {
      found =
        req.verb === 'answer' ? await actions.findRemoteCard(pool, req.query, device) : await actions.findRemote(pool, req.query, device)
    } catch (error) {
      throw new RemoteError(`Not on this machine, and the team store is unreachable: ${cleanError(error, ctx.target.url)}`, 1)
    }

    if (found.length === 0) return null
    if (found.length > 1) {
      throw new RemoteError(
        `"${req.query}" matches several sessions of the team: ${found.map((f) => `${f.id.slice(0, 7)} on ${f.device}`).join(', ')}`,
        4,
      )
    }

    const hit = found[0]!
    const args = req.verb === 'answer' ? {...req.args, card: hit.card} : req.args
    const id = await actions.queueAction(pool, {
      args,
      device: hit.device,
      requestedBy: me,
      requestedFrom: device,
      sessionId: hit.id,
      verb: req.verb,
    })
    const base = {action_id: id, device: hit.device, session: hit.id, verb: req.verb}
    if (o.noWait) return {...base, result: null, status: 'queued', timed_out: false}
    const s = await actions.waitForAction(ctx.target.url, pool, id, o.timeoutMs)
    const done = s.status === 'delivered' || s.status === 'refused'
    return {...base, result: s.result, status: s.status, timed_out: !done}
  } catch (error) {
    if (error instanceof RemoteError) throw error
    const e = error as {code?: string}
    // Row-level security said no: this machine may not queue that (not joined under this identity).
    if (e.code === '42501') throw new RemoteError(`The team store refused the action: ${cleanError(error, ctx.target.url)}`, 5)
    throw new RemoteError(`The team store failed: ${cleanError(error, ctx.target.url)}`, 1)
  } finally {
    await pool.end().catch(() => {})
  }
}

/** One line for a remote outcome, and its exit code (0 delivered or queued, 5 refused, 124 timed out). */
export function describeRemote(r: RemoteOutcome, timeoutMs: number): {line: string; exit: number} {
  const where = `${r.verb} on ${r.session.slice(0, 7)} (runs on ${r.device}), action ${r.action_id}`
  if (r.status === 'queued' && !r.timed_out) return {exit: 0, line: `Queued ${where}; its machine carries it out when it next syncs.`}
  if (r.timed_out)
    return {
      exit: 124,
      line: `Queued ${where}, but ${r.device} did not carry it out within ${Math.round(timeoutMs / 1000)} s (offline?); it stays queued.`,
    }
  const error = typeof r.result?.error === 'string' ? r.result.error : null
  const code = typeof r.result?.exit === 'number' && [2, 3, 4, 5].includes(r.result.exit) ? r.result.exit : 5
  if (r.status === 'refused') return {exit: code, line: `Refused: ${where}: ${(error ?? 'refused').replace(/\.+$/, '')}.`}
  return {exit: 0, line: `Done: ${where}.`}
}
