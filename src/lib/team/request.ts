/**
 * The requesting side: a verb (`send`, `approve`, `deny`, `kill`, `own`, `decide answer`) named
 * on a session (or card) that runs on another machine of the team is checked by kind, signed with
 * this machine's key and queued for the machine it runs on, then waited for (or not, --no-wait).
 */
import crypto from 'node:crypto'

import {hasLocalCard} from '../../core/store/outbox.js'
import type {Store} from '../../core/store/store.js'
import type {ActionState} from '../../core/store/team/actions.js'
import {cleanError} from '../../core/store/team/client.js'
import {CastError} from '../base/cast-error.js'
import {castHome, deviceName} from '../home/env.js'
import {EXIT} from '../base/exit-codes.js'
import {teamContext, type ConfigLike, type Env} from './context.js'
import {KeyFileError, machineKey} from './keys.js'
import {type ActionVerb, ArgError, commandFor, CLOCK_SKEW_MS, MAX_EXPIRY_MS, payloadOf, signPayload} from './protocol.js'

export interface RemoteRequest {
  readonly verb: ActionVerb
  /** A session id/prefix, or for "answer" a card id/prefix. */
  readonly query: string
  readonly args: Readonly<Record<string, unknown>>
}

/** The JSON of a verb carried out on another machine of the team. */
export interface RemoteOutcome {
  readonly action_id: number
  readonly device: string
  readonly session: string
  readonly verb: ActionVerb
  readonly status: ActionState['status']
  readonly result: Record<string, unknown> | null
  readonly timed_out: boolean
}

/** How long a request stays good: the wait plus a clock's margin, at most MAX_EXPIRY_MS. */
export function expiryFor(timeoutMs: number, noWait: boolean, now: number): number {
  return now + (noWait ? MAX_EXPIRY_MS : Math.min(MAX_EXPIRY_MS, timeoutMs + CLOCK_SKEW_MS))
}

/** The request checked by kind (the executor checks the same: say it here, before anything is queued) and signed with this machine's key. */
function signRequest(env: Env, unsigned: Parameters<typeof payloadOf>[0] & {verb: ActionVerb}): string {
  try {
    commandFor(unsigned.verb, unsigned.sessionId, unsigned.args)
  } catch (error) {
    if (error instanceof ArgError) throw new CastError(`${unsigned.verb}: ${error.message}.`, EXIT.USAGE)
    throw error
  }

  try {
    return signPayload(payloadOf(unsigned), machineKey(castHome(env)).privateKey)
  } catch (error) {
    if (error instanceof KeyFileError) throw new CastError(error.message, EXIT.FAILURE)
    throw error
  }
}

/**
 * The remote branch of a verb: null when the session (or card) is this machine's or unknown to
 * the team (the local path handles it). Otherwise the action is signed, queued for the machine it
 * runs on and, unless noWait, waited for up to timeoutMs. Throws CastError.
 */
export async function remoteRequest(
  store: Store,
  env: Env,
  config: ConfigLike,
  me: string,
  req: RemoteRequest,
  o: {noWait: boolean; timeoutMs: number; isLocal: () => boolean},
): Promise<RemoteOutcome | null> {
  if (env.CAST_TEAM_LOCAL === '1') return null
  const ctx = teamContext(store, env, config)
  if (!ctx || o.isLocal()) return null
  const device = deviceName(env)
  const {openPool} = await import('../../core/store/team/client.js')
  const actions = await import('../../core/store/team/actions.js')
  const {queueAction, whoAmIOnServer} = await import('../../core/store/team/calls.js')
  const {joinedDevice} = await import('../../core/store/team/machines.js')
  const {pgSafe} = await import('../../core/store/team/safe-text.js')
  const pool = await openPool(ctx.target.url, {max: 1})
  const failed = (error: unknown, what: string): CastError => {
    if (error instanceof CastError) return error
    // The server said no (a policy or a function refusing this role): nothing was queued.
    if ((error as {code?: string}).code === '42501')
      return new CastError(`The team store refused the action: ${cleanError(error, ctx.target.url)}`, EXIT.REFUSED)
    return new CastError(`${what}${cleanError(error, ctx.target.url)}`, EXIT.FAILURE)
  }

  try {
    let found: {id: string; device: string; card?: string}[]
    try {
      found =
        req.verb === 'answer' ? await actions.findRemoteCard(pool, req.query, device) : await actions.findRemote(pool, req.query, device)
    } catch (error) {
      throw failed(error, 'Not on this machine, and the team store is unreachable: ')
    }

    if (found.length === 0) return null
    if (found.length > 1) {
      const list = found.map((f) => `${f.id.slice(0, 7)} on ${f.device}`).join(', ')
      throw new CastError(`"${req.query}" matches several sessions of the team: ${list}`, EXIT.AMBIGUOUS)
    }

    const hit = found[0]!
    // Made storable first (no NUL, no lone surrogate: docs/team.md), so what is signed is what the server keeps.
    const args: Record<string, unknown> = pgSafe(req.verb === 'answer' ? {...req.args, card: hit.card} : {...req.args})
    for (const k of Object.keys(args)) if (args[k] === null || args[k] === undefined) delete args[k]
    const unsigned = {
      args,
      device: hit.device,
      expiresAt: expiryFor(o.timeoutMs, o.noWait, Date.now()),
      // The server writes requested_by from this role's binding: sign that, not the local name.
      requestedBy: (await whoAmIOnServer(pool)) ?? me,
      requestedFrom: joinedDevice(store) ?? device,
      sessionId: hit.id,
      uid: crypto.randomUUID(),
      verb: req.verb,
    }
    const sig = signRequest(env, unsigned)
    const id = await queueAction(pool, {...unsigned, expiresAt: new Date(unsigned.expiresAt), sig})
    const base = {action_id: id, device: hit.device, session: hit.id, verb: req.verb}
    if (o.noWait) return {...base, result: null, status: 'queued', timed_out: false}
    const s = await actions.waitForAction(ctx.target.url, pool, id, o.timeoutMs)
    const done = s.status === 'delivered' || s.status === 'refused'
    return {...base, result: s.result, status: s.status, timed_out: !done}
  } catch (error) {
    throw failed(error, 'The team store failed: ')
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
      line: `Queued ${where}, but ${r.device} did not carry it out within ${Math.round(timeoutMs / 1000)} s (offline?); it stays queued until its signature expires (${Math.round(Math.min(MAX_EXPIRY_MS, timeoutMs + CLOCK_SKEW_MS) / 1000)} s after it was asked), then ${r.device} refuses it.`,
    }
  const error = typeof r.result?.error === 'string' ? r.result.error : null
  const code = typeof r.result?.exit === 'number' && [2, 3, 4, 5].includes(r.result.exit) ? r.result.exit : 5
  if (r.status === 'refused') return {exit: code, line: `Refused: ${where}: ${(error ?? 'refused').replace(/\.+$/, '')}.`}
  return {exit: 0, line: `Done: ${where}.`}
}

/**
 * The team branch of a verb for a command: null when QUERY is this machine's (or there is no
 * team); else the outcome, its one line and exit code.
 */
export async function remoteVerb(
  store: Store,
  env: Env,
  me: string,
  req: RemoteRequest,
  flags: {'no-wait'?: boolean; timeout?: number},
): Promise<{json: RemoteOutcome; line: string; exit: number} | null> {
  if (env.CAST_TEAM_LOCAL === '1') return null
  const {loadConfig} = await import('../home/config.js')
  const config = await loadConfig(env)
  if (!teamContext(store, env, config)) return null
  const timeoutMs = flags.timeout ?? 30_000
  const isLocal = (): boolean => {
    try {
      if (req.verb === 'answer') return hasLocalCard(store, req.query.trim())
      const q = req.query.trim().toLowerCase()
      return store.sessionIds().some((s) => s.id.startsWith(q) || s.nativeId.toLowerCase().startsWith(q))
    } catch {
      return true
    }
  }

  const r = await remoteRequest(store, env, config, me, req, {isLocal, noWait: flags['no-wait'] === true, timeoutMs})
  if (!r) return null
  return {...describeRemote(r, timeoutMs), json: r}
}
