/**
 * Which tmux servers the screen sweep has to ask (screen.ts): only those that host an agent
 * process. The agent processes come from one scan of /proc (process-scan.ts
 * listAgentProcesses); each one's ancestors are walked up to a tmux server process (comm
 * `tmux: server`). A server no agent runs under is not asked at all: an idle machine with tmux
 * open starts no `tmux` process. Which socket a server process listens on is learnt from its
 * pane list (a pane's first process is the server's child) and kept while that process lives.
 *
 * The pane list of a server is reused while the agent processes under it are the same ones
 * (pid and start time) and it is younger than PANE_LIST_MS: a pane's id and first process do
 * not change, and a new agent process (a new pane, or an agent started in a shell pane) changes
 * the key. Each capture (tmux.ts capturePanes) still reads the screens every sweep.
 */
import fs from 'node:fs'

import type {AgentProcess} from './process-scan.js'
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

/** Server process → the agent processes under it, as a key (pid and start time, sorted). */
export function agentsByServer(procs: readonly AgentProcess[]): Map<number, string> {
  const by = new Map<number, string[]>()
  for (const p of procs) {
    const server = tmuxServerOf(p.pid)
    if (server === null) continue
    by.set(server, [...(by.get(server) ?? []), `${p.pid}@${p.startedAt}`])
  }

  return new Map([...by].map(([server, list]) => [server, list.sort().join(',')]))
}

interface Known {
  /** The server process listening on the socket (null: none answered). */
  readonly serverPid: number | null
  readonly serverStart: number | null
  /** The socket file's inode and change time when learnt: a new server on the path changes them. */
  readonly socketMark: string
  /** The last pane list, the agents key it was listed for, and when. */
  list?: {stdout: string; key: string; at: number}
}

const known = new Map<string, Known>()

function socketMark(socket: string): string {
  try {
    const st = fs.statSync(socket)
    return `${st.ino}:${st.ctimeMs}`
  } catch {
    return '-'
  }
}

/** What the sweep does with one server: skip it (no agent under it), reuse its last pane list, or list it. */
export type ServerPlan = {kind: 'skip'} | {kind: 'reuse'; stdout: string} | {kind: 'list'; key: string}

/**
 * The plan for `server` given the agents under each tmux server process (agentsByServer), or
 * null for every server when /proc could not be read (then every server is listed).
 */
export function planServer(server: TmuxServer, agents: ReadonlyMap<number, string> | null, now: number): ServerPlan {
  if (agents === null) return {key: '', kind: 'list'}
  if (agents.size === 0) return {kind: 'skip'}
  const k = known.get(server.socket)
  const fresh = k !== undefined && k.socketMark === socketMark(server.socket)
  const sameServer = fresh && (k.serverPid === null || processStartTime(k.serverPid) === k.serverStart)
  // Not learnt yet (or a new server on the path): list it once to learn which process it is.
  if (!sameServer) return {key: '', kind: 'list'}
  if (k.serverPid === null) return {kind: 'skip'}
  const key = agents.get(k.serverPid)
  if (key === undefined) return {kind: 'skip'}
  if (k.list && k.list.key === key && now - k.list.at < PANE_LIST_MS) return {kind: 'reuse', stdout: k.list.stdout}
  return {key, kind: 'list'}
}

/**
 * A listing's outcome: the server process (the parent of its panes' first processes), and the
 * list kept for reuse; `gone` (no server answers on the socket) is remembered until the socket
 * file changes. Returns whether an agent runs under this server (for a list made to learn it).
 */
export function learnServer(
  server: TmuxServer,
  result: {gone: boolean; panePids: readonly number[]; stdout: string},
  agents: ReadonlyMap<number, string> | null,
  now: number,
): void {
  const mark = socketMark(server.socket)
  if (result.gone) {
    known.set(server.socket, {serverPid: null, serverStart: null, socketMark: mark})
    return
  }

  const first = result.panePids[0]
  const serverPid = first === undefined ? null : parentPid(first)
  if (serverPid === null) {
    known.delete(server.socket)
    return
  }

  const key = agents?.get(serverPid)
  const entry: Known = {serverPid, serverStart: processStartTime(serverPid), socketMark: mark}
  if (key !== undefined) entry.list = {at: now, key, stdout: result.stdout}
  known.set(server.socket, entry)
}

/** Forget every learnt server (tests start servers on the same paths again). */
export function forgetServers(): void {
  known.clear()
}
