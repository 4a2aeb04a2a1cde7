/**
 * How an agent's own `cast state`, `decide` and `schedule` find the session they act for
 * (DESIGN §6): --session, else CAST_SESSION, else the agent's own variables (CODEX_THREAD_ID),
 * else the process tree: the nearest ancestor that a registry, lock or open handle names as the
 * process of a known session. Never a guess: when nothing matches, exit 3 and say how to pass it.
 */
import {parentPid} from '../core/ingest/process-table.js'
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

  // The process tree: map every claimed pid to its session, then walk up from our parent.
  const byPid = new Map<number, {agent: string; nativeId: string}>()
  for (const c of store.sessionsWithProcessClaims()) {
    const pid = (JSON.parse(c.data) as {processClaim?: {pid: number}}).processClaim?.pid
    if (pid) byPid.set(pid, {agent: c.agent, nativeId: c.nativeId})
  }

  let pid: number | null = startPid
  for (let depth = 0; pid !== null && pid > 1 && depth < 64; depth++) {
    const s = byPid.get(pid)
    if (s) {
      const hit = known.find((k) => k.agent === s.agent && k.nativeId === s.nativeId)
      if (hit) return {id: hit.id, via: `process tree (pid ${pid})`}
    }

    pid = parentPid(pid)
  }

  throw new CastError(
    'Cannot tell which session this is: no --session, no CAST_SESSION, no agent variable, and no known agent process above this one.',
    EXIT.NOT_FOUND,
    ['Pass it explicitly: cast state --session <id> …, or export CAST_SESSION=<id>.'],
  )
}
