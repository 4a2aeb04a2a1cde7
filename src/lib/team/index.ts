/**
 * The team as an application on top of the team store (src/core/store/team, which only speaks
 * SQL): the protocol machines use to ask each other to act (protocol.ts: verbs, arguments by
 * kind, the signed payload and its checks), this machine's key and the teammates' keys it trusts
 * (keys.ts), the requesting side of a verb (request.ts), the executor that carries out what
 * teammates queued here (executor.ts), and the daemon's loops that publish the outbox and run the
 * executor side by side (sync.ts). Commands reach it through the functions below; docs/team.md
 * says what each side may do.
 */
import type {SessionRow, Store} from '../../core/store/store.js'
import {cleanError} from '../../core/store/team/client.js'
import {type ConfigLike, type Env, teamContext} from './context.js'
import type {RunCast} from './executor.js'

export {teamContext} from './context.js'
export type {RemoteOutcome} from './request.js'

/** Start publishing and carrying out actions next to a live ingester (cast daemon, cast sessions -w). */
export async function startTeamSync(
  store: Store,
  env: Env,
  config: ConfigLike,
  o: {device: string; me: string; clock: () => number; log: (m: string) => void; run: RunCast},
): Promise<{kick(): void; stop(): Promise<void>; readonly passes: number} | null> {
  const ctx = teamContext(store, env, config)
  if (!ctx) return null
  const {TeamSync} = await import('./sync.js')
  const {castHome} = await import('../home/env.js')
  const sync = new TeamSync(store, {
    clock: o.clock,
    device: o.device,
    home: castHome(env),
    log: o.log,
    run: o.run,
    url: ctx.target.url,
  })
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
  const {openPool} = await import('../../core/store/team/client.js')
  const {remoteRows} = await import('../../core/store/team/reader.js')
  const pool = await openPool(ctx.target.url, {connectTimeoutMs: 2000, max: 1})
  try {
    return (await remoteRows(pool, device)).rows
  } catch (error) {
    warn(`the team store is unreachable (${cleanError(error, ctx.target.url)}): showing this machine's sessions only`)
    return []
  } finally {
    await pool.end().catch(() => {})
  }
}

/**
 * One teammate's session by its exact id, checked as teamRows checks every row (its machine's
 * member, runner and summary): the row, null when the team store holds no such row that passes,
 * or undefined without a team. Throws when the server cannot be reached (the caller refuses).
 */
export async function teamRow(
  store: Store,
  env: Env,
  config: ConfigLike,
  device: string,
  id: string,
): Promise<SessionRow | null | undefined> {
  const ctx = teamContext(store, env, config)
  if (!ctx) return undefined
  const {openPool} = await import('../../core/store/team/client.js')
  const {remoteRows} = await import('../../core/store/team/reader.js')
  const pool = await openPool(ctx.target.url, {connectTimeoutMs: 2000, max: 1})
  try {
    return (await remoteRows(pool, device, id)).rows[0] ?? null
  } catch (error) {
    throw new Error(`the team store is unreachable (${cleanError(error, ctx.target.url)})`)
  } finally {
    await pool.end().catch(() => {})
  }
}
