/**
 * The caller's process ancestry, read from /proc without the adapters (src/adapters/session-variables.ts
 * holds the variables and process names it needs): the command (src/lib/agents/self-session.ts) and
 * `cast state`'s fast path (src/lib/state/state-fast.ts) share it.
 */
import {AGENT_PROCESSES, SESSION_VARIABLES} from '../../adapters/session-variables.js'
import {parentPid, processNames, sandboxedView} from '../../core/ingest/process-table.js'
import {isProcessLive} from '../../core/model/work-state.js'
import type {ProcessFacts} from '../../core/model/types.js'

/** How far up the process tree a walk goes. */
export const MAX_DEPTH = 64

/** The pids above `startPid` (itself first), up to init (left out), as the process-tree search walks them. */
export function ancestors(startPid: number): number[] {
  const out: number[] = []
  let pid: number | null = startPid
  for (let depth = 0; pid !== null && pid > 1 && depth < MAX_DEPTH; depth++) {
    out.push(pid)
    pid = parentPid(pid)
  }

  return out
}

/**
 * The caller's ancestry proves its session's agent alive: the session was found through the
 * variable its agent sets in the commands it runs (its module's sessionVariable), and an ancestor of this
 * process is that agent's (by its process names), or the first process of the sandbox the agent
 * runs commands in (src/core/ingest/process-table.ts sandboxedView: from inside, the agent itself
 * is out of sight, so a sync from here finds no process holding its files). Returns the process
 * facts to record (the stored pid kept), or null when the stored facts already say live or the
 * ancestry proves nothing.
 */
export function ancestryProcess(
  agent: string,
  self: {readonly via: string},
  stored: ProcessFacts | null,
  now: number,
  startPid = process.ppid,
): ProcessFacts | null {
  if (isProcessLive(stored)) return null
  if (!SESSION_VARIABLES.some((v) => v.agent === agent && v.name === self.via)) return null
  const names = AGENT_PROCESSES.find((p) => p.agent === agent)?.processes ?? []
  const sandbox = sandboxedView()
  let pid: number | null = startPid
  let found: string | null = null
  for (let depth = 0; pid !== null && pid > 0 && depth < MAX_DEPTH && found === null; depth++) {
    const own = processNames(pid).find((n) => names.some((a) => n === a || n.startsWith(`${a}-`)))
    if (own !== undefined) found = `${own} (pid ${pid})`
    else if (pid === 1 && sandbox !== null) found = `${sandbox} (pid 1 of the agent's sandbox)`
    pid = pid === 1 ? null : parentPid(pid)
  }

  if (found === null) return null
  return {
    alive: true,
    exited: null,
    heartbeatAt: now,
    pid: stored?.pid ?? 0,
    source: {kind: 'ancestry', ref: `${found} above \`cast\`, found via ${self.via}`},
    status: null,
  }
}
