/**
 * `cast daemon`'s side of the reads src/lib/home/read-socket.ts describes (given to the socket's
 * server, src/lib/state/state-serve.ts, by the daemon command): `cast sessions` and
 * `cast status` answered from the store this daemon keeps open and current, with the same code as
 * the commands' own paths (src/lib/views/sessions-list.ts, src/lib/notify/status-fast.ts), so the
 * bytes are the same. Whatever it cannot answer exactly as the caller would is declined, and the
 * caller runs the command itself: another build, another time zone, a home the daemon does not
 * keep, no live lease, a flag the fast paths leave to oclif, a human listing for a terminal (its
 * colours, width and pager are the caller's), `--cwd` (relative to the caller's folder), a joined
 * team (the teammates' rows and their warnings), an error.
 */
import type {Store} from '../../core/store/store.js'
import {INGESTER_LEASE, leaseIsLive} from '../ingest/lease.js'
import {type ReadRequest, timeZone} from '../home/read-socket.js'
import {protocolVersion} from '../home/run-socket.js'

export interface ReadAnswer {
  readonly code: number
  readonly stdout: string
}

export function isReadRequest(r: unknown): r is ReadRequest {
  if (typeof r !== 'object' || r === null || (r as {kind?: unknown}).kind !== 'read') return false
  const q = r as ReadRequest
  const str = (v: unknown, max: number): boolean => typeof v === 'string' && v.length <= max
  return (
    str(q.v, 100) &&
    str(q.id, 100) &&
    /^[\w.-]{8,}$/.test(q.id) &&
    (q.cmd === 'sessions' || q.cmd === 'status') &&
    Array.isArray(q.argv) &&
    q.argv.every((a) => typeof a === 'string') &&
    typeof q.env === 'object' &&
    q.env !== null &&
    Object.values(q.env).every((v) => typeof v === 'string') &&
    str(q.me, 1000) &&
    str(q.tz, 200) &&
    (q.recencyMs === undefined || q.recencyMs === null || (typeof q.recencyMs === 'number' && q.recencyMs > 0))
  )
}

/** The answer's stdout and exit code, or null: declined. */
export async function answerRead(store: Store, home: string, r: ReadRequest): Promise<ReadAnswer | null> {
  if (r.v !== protocolVersion() || r.tz !== timeZone() || store.stale) return null
  const {castHome, clockFrom} = await import('../home/env.js')
  if (castHome(r.env) !== home || !leaseIsLive(store.getLease(INGESTER_LEASE))) return null
  const env = r.env as NodeJS.ProcessEnv
  if (r.cmd === 'status') {
    const {parseStatusArgs, statusText} = await import('../notify/status-fast.js')
    const args = parseStatusArgs(r.argv)
    if (args === null) return null
    const {statusSnapshot} = await import('../notify/status.js')
    const snap = statusSnapshot(store, r.me, clockFrom(env)(), r.recencyMs ?? undefined)
    return {code: 0, stdout: statusText(snap.counts, null, false, args)}
  }

  if (env.CAST_CONTENT_TYPE !== undefined) return null
  const {parseSessionsArgv} = await import('./sessions-fast.js')
  const parsed = await parseSessionsArgv(r.argv)
  if (parsed === null || parsed.flags.cwd !== undefined) return null
  const {loadConfig} = await import('../home/config.js')
  const {teamContext} = await import('../team/index.js')
  if (teamContext(store, env, await loadConfig(env)) !== null) return null
  const {listSessions} = await import('../views/sessions-list.js')
  const {visible} = await import('../../core/model/sanitize.js')
  const out: string[] = []
  const listing = await listSessions(store, env, clockFrom(env), r.me, parsed.flags, {
    json: parsed.json,
    line: (text) => out.push(visible(text) + '\n'),
    plain: true,
    styled: (text) => out.push(text + '\n'),
    write: (chunk) => out.push(chunk),
  })
  // BaseCommand.logJson's bytes, as src/lib/cli/sessions-fast.ts prints them.
  if (listing && parsed.json) out.push(JSON.stringify(listing, null, 2) + '\n')
  return {code: 0, stdout: out.join('')}
}
