/**
 * How an agent's own `cast state`, `decide` and `schedule` find the session they act for
 * (DESIGN §6): --session, else CAST_SESSION, else the agent's own variables (CODEX_THREAD_ID),
 * else the process tree: the nearest ancestor that a registry, lock or open handle names as the
 * process of a known session. Never a guess: when nothing matches, exit 3 and say how to pass it.
 */
import {isSameProcessAlive, parentPid} from '../core/ingest/process-table.js'
import type {Store} from '../core/store/store.js'
import {CastError} from './base-command.js'
import type {Env} from './env.js'
import {EXIT} from './exit-codes.js'
import {resolveSession} from './resolve.js'

/** Variables agent CLIs set in the shells they spawn, naming their own session. */
const AGENT_VARIABLES: readonly {name: string; agent: string}[] = [
  {agent: 'codex', name: 'CODEX_THREAD_ID'},
  {agent: 'claude_code', name: 'CLAUDE_SESSION_ID'},
  {agent: 'pi', name: 'PI_SESSION_ID'},
  {agent: 'gemini', name: 'GEMINI_SESSION_ID'},
  {agent: 'copilot', name: 'COPILOT_SESSION_ID'},
]

export interface SelfSession {
  readonly id: string
  readonly via: string
}

export function findOwnSession(store: Store, flag: string | undefined, env: Env, startPid = process.ppid): SelfSession {
  if (flag) return {id: resolveSession(store, flag), via: env.CAST_SESSION === flag ? 'CAST_SESSION' : '--session'}
  if (env.CAST_SESSION) return {id: resolveSession(store, env.CAST_SESSION), via: 'CAST_SESSION'}
  const known = store.sessionIds()
  for (const v of AGENT_VARIABLES) {
    const value = env[v.name]
    if (!value) continue
    const hit = known.find((k) => k.agent === v.agent && k.nativeId === value)
    if (hit) return {id: hit.id, via: v.name}
  }

  // The process tree: map every live claimed pid to its sessions, then walk up from our parent.
  // A claim counts only when its process is alive and started when the claim says (no pid reuse).
  const byPid = new Map<number, Set<string>>()
  const alive = new Map<string, boolean>()
  for (const c of store.sessionsWithProcessClaims()) {
    const claim = (JSON.parse(c.data) as {processClaim?: {pid: number; startedAt?: number | null}}).processClaim
    if (!claim?.pid) continue
    const key = `${claim.pid}:${claim.startedAt ?? ''}`
    let ok = alive.get(key)
    if (ok === undefined) alive.set(key, (ok = isSameProcessAlive(claim.pid, claim.startedAt ?? null)))
    if (!ok) continue
    const hit = known.find((k) => k.agent === c.agent && k.nativeId === c.nativeId)
    if (!hit) continue
    byPid.set(claim.pid, (byPid.get(claim.pid) ?? new Set()).add(hit.id))
  }

  let pid: number | null = startPid
  for (let depth = 0; pid !== null && pid > 1 && depth < 64; depth++) {
    const ids = byPid.get(pid)
    if (ids && ids.size === 1) return {id: [...ids][0]!, via: `process tree (pid ${pid})`}
    if (ids && ids.size > 1) {
      throw new CastError(
        `Process ${pid} above this one is claimed by ${ids.size} sessions (${[...ids].map((i) => i.slice(0, 7)).join(', ')}); cast will not guess.`,
        EXIT.AMBIGUOUS,
        ['Pass it explicitly: --session <id>, or export CAST_SESSION=<id>.'],
      )
    }

    pid = parentPid(pid)
  }

  throw new CastError(
    'Cannot tell which session this is: no --session, no CAST_SESSION, no agent variable, and no known agent process above this one.',
    EXIT.NOT_FOUND,
    ['Pass it explicitly: --session <id> (e.g. cast state --session 3f9a2c1 "…"), or export CAST_SESSION=<id>.'],
  )
}
