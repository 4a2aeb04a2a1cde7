/**
 * The agent processes running on this machine, from /proc: each live process whose name (comm, or
 * an interpreter's script) is one of an agent's process names, with its folder and start time.
 * The process scan (process-scan.ts), the screen sweep and the unwritten runs ask it. Names are
 * cached per pid, so an idle daemon does not read every process's argv each scan.
 */
import fs from 'node:fs'

import type {Agent} from '../model/types.js'
import {processArgv, processName, processStartTime} from './process-table.js'

const INTERPRETERS = new Set(['node', 'nodejs', 'bun', 'deno', 'sh', 'bash', 'dash', 'zsh', 'python', 'python3'])

export interface AgentProcess {
  readonly pid: number
  readonly agent: Agent
  readonly cwd: string | null
  readonly startedAt: number | null
}

/**
 * What each process seen by the last scans is named: its comm, and for an interpreter the
 * basename of its first argument that is not an option. Reading them for every process of the
 * machine each scan was most of an idle daemon's work (bench/idle.js).
 */
const nameCache = new Map<number, {comm: string; arg: string | null; since: number}>()
let scans = 0
/** A process is looked at every scan for this long after it was first seen. */
const YOUNG_MS = 10_000
/** Past that, a process named as no agent is looked at again by one scan in this many (pid modulo). */
const RECHECK_SPREAD = 15

function namesOf(pid: number, since: number): {comm: string; arg: string | null; since: number} | null {
  const comm = processName(pid)
  if (comm === null) return null
  let arg: string | null = null
  if (INTERPRETERS.has(comm.replace(/[\d.]+$/, ''))) {
    for (const a of processArgv(pid).slice(1, 4)) {
      if (a.startsWith('-')) continue
      arg = a.slice(a.lastIndexOf('/') + 1)
      break
    }
  }

  return {arg, comm, since}
}

/**
 * Every live process whose name is one of `names` (comm, argv[0]'s basename, argv[1]'s when
 * argv[0] is an interpreter). Null when there is no /proc to read (then nothing is claimed).
 * For an agent that runs as a parent and a child of the same name (a node relaunch), the
 * outermost one stands for both.
 */
export function listAgentProcesses(names: ReadonlyMap<string, Agent>, agents: ReadonlySet<Agent>): AgentProcess[] | null {
  let pids: string[]
  try {
    pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))
  } catch {
    return null
  }

  const found = new Map<number, {agent: Agent; ppid: number}>()
  const now = Date.now()
  const turn = scans++ % RECHECK_SPREAD
  const live = new Set<number>()
  for (const d of pids) {
    const pid = Number(d)
    live.add(pid)
    const seen = nameCache.get(pid)
    const agentBefore = seen !== undefined && (names.has(seen.comm) || (seen.arg !== null && names.has(seen.arg)))
    // A process named as no agent keeps its name: looked at again while young (an exec or a
    // title set after start), then in turn, one scan in RECHECK_SPREAD.
    const fresh = seen !== undefined && !agentBefore && now - seen.since >= YOUNG_MS && pid % RECHECK_SPREAD !== turn
    const n = fresh ? seen : namesOf(pid, seen?.since ?? now)
    if (n === null) continue
    nameCache.set(pid, n)
    const agent = names.get(n.comm) ?? (n.arg === null ? undefined : names.get(n.arg))
    if (agent === undefined || !agents.has(agent)) continue
    let ppid = 0
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
      ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    } catch {
      continue
    }

    found.set(pid, {agent, ppid})
  }

  for (const pid of nameCache.keys()) if (!live.has(pid)) nameCache.delete(pid)
  const out: AgentProcess[] = []
  for (const [pid, p] of found) {
    if (found.get(p.ppid)?.agent === p.agent) continue // the child of a relaunch: its parent stands for it
    let cwd: string | null = null
    try {
      cwd = fs.readlinkSync(`/proc/${pid}/cwd`)
    } catch {
      cwd = null
    }

    out.push({agent: p.agent, cwd, pid, startedAt: processStartTime(pid)})
  }

  return out
}
