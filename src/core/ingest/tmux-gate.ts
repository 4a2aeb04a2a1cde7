/**
 * Which tmux servers the screen sweep has to ask (screen.ts): only those that host an agent
 * process. The agent processes come from one scan of /proc (process-scan.ts
 * listAgentProcesses); each one's ancestors are walked up to a tmux server process (comm
 * `tmux: server`), and the sockets that process listens on are read from /proc (its fds, named in
 * /proc/net/unix). A server no agent runs under is not asked at all: an idle machine with tmux
 * open starts no `tmux` process.
 *
 * The pane list of a server is reused while the agent processes under it are the same ones
 * (pid and start time) and it is younger than PANE_LIST_MS: a pane's id and first process do
 * not change, and a new agent process (a new pane, or an agent started in a shell pane) changes
 * the key. Each capture (tmux.ts capturePanes) still reads the screens every sweep.
 */
import fs from 'node:fs'
import path from 'node:path'

import type {AgentProcess} from './agent-processes.js'
import {parentPid, processName, processStartTime} from './process-table.js'
import type {TmuxServer} from './tmux.js'

/** A reused pane list is listed again after this long (pane addresses: a renamed session or window). */
export const PANE_LIST_MS = 30_000
const MAX_DEPTH = 64

/** The tmux server process an agent process runs under, or null. */
export function tmuxServerOf(pid: number): number | null {
  let p: number | null = pid
  for (let i = 0; i < MAX_DEPTH && p !== null && p > 1; i++) {
    p = parentPid(p)
    if (p === null || p <= 1) return null
    if (processName(p)?.startsWith('tmux')) return p
  }

  return null
}

/** The unix socket paths a process holds (as bound: a server started with a relative -S path shows it relative). */
function socketPathsOf(pid: number, table: () => Map<string, string>): string[] {
  const out: string[] = []
  let fds: string[]
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`)
  } catch {
    return out
  }

  for (const fd of fds) {
    let target: string
    try {
      target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`)
    } catch {
      continue
    }

    const m = /^socket:\[(\d+)\]$/.exec(target)
    const bound = m ? table().get(m[1]!) : undefined
    if (bound) out.push(bound)
  }

  return out
}

/** Socket inode → bound path, from the process's /proc/<pid>/net/unix (its network namespace; paths only). */
function unixTable(pid: number): Map<string, string> {
  const out = new Map<string, string>()
  let text = ''
  try {
    text = fs.readFileSync(`/proc/${pid}/net/unix`, 'utf8')
  } catch {
    return out
  }

  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/)
    if (f.length >= 8 && f[7]!.length > 0 && !f[7]!.startsWith('@')) out.set(f[6]!, f.slice(7).join(' '))
  }

  return out
}

/** Server process (pid and start) → the socket paths it listens on; kept while it lives. */
const socketsOf = new Map<string, string[]>()

/** The agents under each tmux server, by the server's socket paths: socket → agents key (pid@start, sorted). */
export interface AgentSockets {
  readonly keys: ReadonlyMap<string, string>
}

export function agentSockets(procs: readonly AgentProcess[]): AgentSockets {
  const by = new Map<number, string[]>()
  for (const p of procs) {
    const server = tmuxServerOf(p.pid)
    if (server === null) continue
    by.set(server, [...(by.get(server) ?? []), `${p.pid}@${p.startedAt}`])
  }

  const keys = new Map<string, string>()
  const live = new Set<string>()
  for (const [server, list] of by) {
    const id = `${server}@${processStartTime(server)}`
    live.add(id)
    let sockets = socketsOf.get(id)
    if (!sockets) {
      let table: Map<string, string> | null = null
      sockets = socketPathsOf(server, () => (table ??= unixTable(server)))
      socketsOf.set(id, sockets)
    }

    for (const s of sockets) keys.set(s, list.sort().join(','))
  }

  for (const id of socketsOf.keys()) if (!live.has(id)) socketsOf.delete(id)
  return {keys}
}

/** The agents key of the server on `socket`, or undefined: no agent runs under it. */
function keyOf(agents: AgentSockets, socket: string): string | undefined {
  const direct = agents.keys.get(socket)
  if (direct !== undefined) return direct
  let real = socket
  try {
    real = fs.realpathSync(socket)
  } catch {
    // gone: compared as given
  }

  for (const [bound, key] of agents.keys) {
    if (bound === real) return key
    // Bound relative to the folder the server was started in.
    if (!path.isAbsolute(bound) && (socket.endsWith(`/${bound}`) || real.endsWith(`/${bound}`))) return key
  }

  return undefined
}

/** The last pane list of each socket, the agents key it was listed for, and when. */
const lists = new Map<string, {stdout: string; key: string; at: number}>()

/** What the sweep does with one server: skip it (no agent under it), reuse its last pane list, or list it. */
export type ServerPlan = {kind: 'skip'} | {kind: 'reuse'; stdout: string} | {kind: 'list'; key: string | null}

/** The plan for `server`; `agents` null (no /proc) lists every server. */
export function planServer(server: TmuxServer, agents: AgentSockets | null, now: number): ServerPlan {
  if (agents === null) return {key: null, kind: 'list'}
  const key = keyOf(agents, server.socket)
  if (key === undefined) {
    lists.delete(server.socket)
    return {kind: 'skip'}
  }

  const last = lists.get(server.socket)
  if (last && last.key === key && now - last.at < PANE_LIST_MS) return {kind: 'reuse', stdout: last.stdout}
  return {key, kind: 'list'}
}

/** Keep a pane list made for `plan` for the next sweeps. */
export function keepList(server: TmuxServer, plan: ServerPlan, stdout: string, now: number): void {
  if (plan.kind === 'list' && plan.key !== null) lists.set(server.socket, {at: now, key: plan.key, stdout})
}
