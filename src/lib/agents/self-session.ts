/**
 * How an agent's own `cast state`, `decide` and `schedule` find the session they act for
 * (docs/contract.md §6): --session, else CAST_SESSION, else the agent's own variable (each agent module's sessionVariable),
 * else the process tree: the nearest ancestor that a registry, lock or open handle names as the
 * process of a known session. Never a guess: when nothing matches, exit 3 and say how to pass it.
 */
import {registry} from '../../adapters/index.js'
import {processNames} from '../../core/ingest/screen.js'
import {isSameProcessAlive, parentPid} from '../../core/ingest/process-table.js'
import type {Store} from '../../core/store/store.js'
import {CastError} from '../base/cast-error.js'
import type {Env} from '../home/env.js'
import {EXIT} from '../base/exit-codes.js'
import {INGESTER_LEASE, leaseIsLive} from '../ingest/ingest.js'
import {resolveSession} from '../base/resolve.js'

/**
 * How long the process tree is re-read when an agent process is above us but no claim names it
 * yet while another process ingests: agents without a registry of processes (processScan) are
 * claimed by the live ingester's process scan, which may not have run since the turn began (such
 * an agent may write its first file just before the tool that runs `cast state`).
 */
const CLAIM_WAIT_MS = 6000

/** Variables agent CLIs set in the shells they spawn, naming their own session (the registry's). */
export function agentVariables(): readonly {readonly name: string; readonly agent: string}[] {
  return registry().sessionVariables
}

export interface SelfSession {
  readonly id: string
  readonly via: string
}

export function findOwnSession(store: Store, flag: string | undefined, env: Env, startPid = process.ppid): SelfSession {
  if (flag) return {id: resolveSession(store, flag), via: env.CAST_SESSION === flag ? 'CAST_SESSION' : '--session'}
  if (env.CAST_SESSION) return {id: resolveSession(store, env.CAST_SESSION), via: 'CAST_SESSION'}
  const known = store.sessionIds()
  for (const v of agentVariables()) {
    const value = env[v.name]
    if (!value) continue
    const hit = known.find((k) => k.agent === v.agent && k.nativeId === value)
    if (hit) return {id: hit.id, via: v.name}
  }

  const found = fromProcessTree(store, startPid)
  if (found) return found
  if (agentAbove(startPid) && leaseIsLive(store.getLease(INGESTER_LEASE))) {
    for (const end = Date.now() + CLAIM_WAIT_MS; Date.now() < end;) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250)
      const later = fromProcessTree(store, startPid)
      if (later) return later
    }
  }

  throw new CastError(
    'Cannot tell which session this is: no --session, no CAST_SESSION, no agent variable, and no known agent process above this one.',
    EXIT.NOT_FOUND,
    ['Pass it explicitly: --session <id> (e.g. cast state --session 3f9a2c1 "…"), or export CAST_SESSION=<id>.'],
  )
}

/** Is one of our ancestors an agent CLI (by the process names in its screen patterns)? */
function agentAbove(startPid: number): boolean {
  const names = new Set(registry().screenPatterns.flatMap((p) => p.processes))
  let pid: number | null = startPid
  for (let depth = 0; pid !== null && pid > 1 && depth < 64; depth++) {
    if (processNames(pid).some((n) => names.has(n))) return true
    pid = parentPid(pid)
  }

  return false
}

function fromProcessTree(store: Store, startPid: number): SelfSession | null {
  const known = store.sessionIds()
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

  return null
}

export {ancestryProcess} from './ancestry.js'
