/**
 * The terminal fallback (issue 6 item 6, agent-formats §11): for agents running in tmux panes,
 * read the bottom of each agent pane and let what it shows (a permission dialog, a question, an
 * error banner, busy, a plain prompt) stand in where the agent's own files cannot show a wait.
 *
 * One sweep costs two tmux processes, whatever the number of sessions: one `list-panes -a`, then
 * one `tmux` invocation that captures every agent pane at once (commands chained with `;`, each
 * capture preceded by a marker line). Which pane is which agent comes from /proc (the pane's
 * process tree); which session a pane shows comes from the process the session's registry, lock
 * or open file handle names (a pid in the pane's tree), else from the agent process's working
 * directory when exactly one session of that agent there was active during the process's life.
 * Never a guess between several.
 *
 * What the screen shows is stored as a contribution of a pseudo file `screen://tmux<socket>/<pane>` with
 * empty facts, so no adapter's compose reads it; `applyScreen` lays it over the composed facts
 * (from Ingester.recompose) and only where no better source answers:
 *   - the composed facts already hold a hard block (approval, question, error): nothing;
 *   - a live process reports a status (Claude Code's registry, a hook): nothing;
 *   - the turn settled in the files: nothing (a plain prompt is what that means);
 *   - otherwise an unsettled turn: a dialog or banner becomes the hard block (DESIGN §3.5:
 *     approval, question, error), busy becomes a working process status, and a plain prompt
 *     that stayed the same across two sweeps settles the turn (no reason of its own).
 * A wait the files moved past (activity after the screen first showed it) is stale and ignored.
 * Every fact it sets names its source `{kind: 'screen', ref: 'tmux <pane> (<address>)'}`.
 */
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import type {Agent, FactSource, HardBlock, SessionFacts} from '../model/types.js'
import {contributionsAtPath, contributionsNamingPid, screenContributions, sessionsInCwd, storeChangeKey} from '../store/screen.js'
import type {Store} from '../store/store.js'
import type {Contribution} from './adapter.js'
import type {Ingester} from './engine.js'
import {scanSessions, type TiedProcess} from './process-scan.js'
import {isSameProcessAlive, processArgv, processName, processStartTime} from './process-table.js'

/** How often the live ingester sweeps. */
export const SCREEN_SWEEP_MS = 2000
/** Below the transcript's neighbours: registry 10, hooks 20. */
export const SCREEN_PRIORITY = 5
/** A plain prompt must look the same for this long (two sweeps) before it settles a turn. */
export const IDLE_CONFIRM_MS = 1500
/** Activity this much later than the screen first showed a wait makes the wait stale. */
export const STALE_SLACK_MS = 2000

/** `screen://tmux<socket>/<pane>`: pane ids are unique per server only. */
const PATH_PREFIX = 'screen://tmux'

export type ScreenKind = 'approval' | 'question' | 'busy' | 'error' | 'idle'

/** What the screen shows, as the matcher (src/adapters/screen.ts) reads it. */
export interface ScreenReading {
  readonly kind: ScreenKind
  readonly text: string
}

/** The agents' screen patterns, compiled: process names, and the matcher. */
export interface ScreenMatcher {
  /** Process name -> agent. */
  readonly processes: ReadonlyMap<string, Agent>
  match(agent: Agent, screen: string): ScreenReading | null
}

/** What one pane showed, stored in the contribution's `extra.screen` of `screen://tmux<socket>/<pane>`. */
export interface ScreenObservation {
  readonly kind: ScreenKind
  readonly text: string
  /** `%3`. */
  readonly pane: string
  /** `main:1.0`. */
  readonly address: string
  /** The agent process in the pane. */
  readonly pid: number
  /** Its start time (epoch ms), so pid reuse cannot keep a reading alive. */
  readonly startedAt?: number | null
  /** How the pane was tied to the session. */
  readonly via: 'pid' | 'cwd'
  /** When a sweep first saw this reading. */
  readonly since: number
  /** When a later sweep saw it unchanged, at least IDLE_CONFIRM_MS after `since`. */
  readonly confirmedAt: number | null
  /** What "unchanged" compares: kind and text (busy: kind only; idle: the whole bottom). */
  readonly sig: string
}

export interface ScreenSweepStats {
  /** 'missing': no tmux binary; 'no_server': no server socket; 'ok'; 'error': tmux failed. */
  tmux: 'missing' | 'no_server' | 'ok' | 'error'
  panes: number
  agentPanes: number
  mapped: number
  /** tmux processes started by this sweep. */
  calls: number
  written: number
  removed: number
  transitions: number
  /** tmux servers that answered. */
  servers: number
  /** Unsettled sessions the process scan looked at. */
  scanned?: number
  error?: string
}

// ---------------------------------------------------------------------------------------------
// The overlay (pure)

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

export function screenObservationOf(c: Contribution): ScreenObservation | null {
  const s = isObject(c.extra) ? c.extra['screen'] : undefined
  if (!isObject(s) || typeof s['kind'] !== 'string' || typeof s['since'] !== 'number') return null
  return s as unknown as ScreenObservation
}

export function isScreenContribution(c: Contribution): boolean {
  return screenObservationOf(c) !== null
}

export function screenSource(o: Pick<ScreenObservation, 'pane' | 'address'>): FactSource {
  return {kind: 'screen', ref: o.address ? `tmux ${o.pane} (${o.address})` : `tmux ${o.pane}`}
}

/**
 * Lay what the screen shows over a session's composed facts, where no better source answers
 * (see the module comment). Pure; `contributions` may hold any sources, only screen ones count.
 */
export function applyScreen(facts: SessionFacts, contributions: readonly Contribution[]): SessionFacts {
  let obs: ScreenObservation | null = null
  for (const c of contributions) {
    const o = screenObservationOf(c)
    if (o && (obs === null || o.since > obs.since)) obs = o
  }

  if (obs === null) return facts
  const corrected = registryDialogClosed(facts, obs)
  if (corrected !== null) return corrected
  if (facts.approval !== null || facts.question !== null || facts.error !== null) return facts
  if (facts.process !== null && facts.process.alive && facts.process.status !== null) return facts
  if (facts.settled) return facts
  const source = screenSource(obs)
  const stale = facts.lastActivityAt !== null && facts.lastActivityAt > obs.since + STALE_SLACK_MS
  switch (obs.kind) {
    case 'approval':
    case 'question':
    case 'error': {
      if (stale) return facts
      // An approval's text names what is to be approved (`approve rm -rf build?`): no question mark of its own.
      const text = (obs.kind === 'approval' ? obs.text.replace(/\?+$/, '') : obs.text) || obs.kind
      const block: HardBlock = {at: obs.since, source, text}
      return {...facts, [obs.kind]: block, sources: {...facts.sources, [obs.kind]: source}}
    }

    case 'idle': {
      if (stale || obs.confirmedAt === null) return facts
      return {...facts, settled: true, sources: {...facts.sources, settled: source}}
    }

    case 'busy': {
      if (facts.process !== null && !facts.process.alive) return facts
      const process = facts.process
        ? {...facts.process, source, status: 'working' as const}
        : {alive: true, exited: null, heartbeatAt: null, pid: obs.pid, source, status: 'working' as const}
      return {...facts, process, sources: {...facts.sources, process: source}}
    }
  }

  return facts
}

/**
 * A registry or hook that still says a dialog is open (Claude Code's `waitingFor`; Gemini's
 * Notification, which no hook follows when the user answers) while the screen has since shown the
 * agent busy, or at a plain prompt across two sweeps, with no dialog on it: the dialog closed
 * and the files have not caught up. The screen corrects it; null when it does not apply.
 */
function registryDialogClosed(facts: SessionFacts, obs: ScreenObservation): SessionFacts | null {
  const kind = facts.approval !== null ? 'approval' : facts.question !== null ? 'question' : null
  if (kind === null || facts.error !== null) return null
  const block = facts[kind]!
  // A dialog the files or hooks opened and that nothing closes when the user answers it (Claude
  // Code's registry lagging, Gemini's hooks: no hook fires on the answer, only AfterTool later).
  const from = facts.sources[kind]?.kind
  if (from !== 'registry' && from !== 'hook') return null
  const moved = obs.kind === 'busy' || (obs.kind === 'idle' && obs.confirmedAt !== null)
  if (!moved || obs.since <= block.at + STALE_SLACK_MS) return null
  const source = screenSource(obs)
  const cleared: SessionFacts = {...facts, [kind]: null, sources: {...facts.sources, [kind]: source}}
  if (obs.kind === 'idle') return {...cleared, settled: true, sources: {...cleared.sources, settled: source}}
  if (facts.process === null || !facts.process.alive) return cleared
  return {...cleared, process: {...facts.process, source, status: 'working'}, sources: {...cleared.sources, process: source}}
}

// ---------------------------------------------------------------------------------------------
// tmux

export interface TmuxServer {
  readonly bin: string
  readonly socket: string
}

const binCache = new Map<string, string | null>()

/** The tmux binary on PATH, or null. */
export function tmuxBinary(env: Readonly<Record<string, string | undefined>>): string | null {
  const key = env.PATH ?? ''
  if (binCache.has(key)) return binCache.get(key)!
  let found: string | null = null
  for (const dir of key.split(path.delimiter)) {
    if (!dir) continue
    const p = path.join(dir, 'tmux')
    try {
      fs.accessSync(p, fs.constants.X_OK)
      found = p
      break
    } catch {
      // not here
    }
  }

  binCache.set(key, found)
  return found
}

/** The server tmux itself would talk to: $TMUX's socket inside tmux, else the default one. */
export function tmuxSocket(env: Readonly<Record<string, string | undefined>>): string {
  const inside = env.TMUX?.split(',')[0]
  if (inside) return inside
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0
  return path.join(env.TMUX_TMPDIR || '/tmp', `tmux-${uid}`, 'default')
}

/**
 * Every tmux server the user may run: the one $TMUX names (inside tmux), and every socket the
 * user owns in the tmux socket folder (`$TMUX_TMPDIR/tmux-<uid>/`, `/tmp` by default), so panes
 * on `tmux -L work` or a private test server are read like the default one. No process started.
 */
export function tmuxServers(env: Readonly<Record<string, string | undefined>>): {servers: TmuxServer[]; why: 'missing' | 'no_server' | null} {
  const bin = tmuxBinary(env)
  if (bin === null) return {servers: [], why: 'missing'}
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0
  const sockets = new Set<string>()
  const isMine = (p: string): boolean => {
    try {
      const st = fs.lstatSync(p)
      return st.isSocket() && st.uid === uid
    } catch {
      return false
    }
  }

  const inside = env.TMUX?.split(',')[0]
  if (inside && isMine(inside)) sockets.add(inside)
  const dir = path.join(env.TMUX_TMPDIR || '/tmp', `tmux-${uid}`)
  let names: string[] = []
  try {
    names = fs.readdirSync(dir).sort()
  } catch {
    names = []
  }

  for (const name of names) {
    const p = path.join(dir, name)
    if (isMine(p)) sockets.add(p)
  }

  if (sockets.size === 0) return {servers: [], why: 'no_server'}
  return {servers: [...sockets].map((socket) => ({bin, socket})), why: null}
}

/** tmux and a server socket, checked without starting a process; null when either is missing. */
export function tmuxServer(env: Readonly<Record<string, string | undefined>>): {server: TmuxServer | null; why: 'missing' | 'no_server' | null} {
  const bin = tmuxBinary(env)
  if (bin === null) return {server: null, why: 'missing'}
  const socket = tmuxSocket(env)
  try {
    if (!fs.statSync(socket).isSocket()) return {server: null, why: 'no_server'}
  } catch {
    return {server: null, why: 'no_server'}
  }

  return {server: {bin, socket}, why: null}
}

function runTmux(server: TmuxServer, args: readonly string[], env: Readonly<Record<string, string | undefined>>): {ok: boolean; stdout: string; stderr: string} {
  const clean: Record<string, string> = {}
  for (const [k, v] of Object.entries(env)) if (v !== undefined) clean[k] = v
  // Without a UTF-8 locale the tmux client prints every non-ASCII character (❯, ⠹, …) and every
  // tab as '_': the screens would not match and the pane list would not split.
  if (!/utf-?8/i.test(clean.LC_ALL || clean.LC_CTYPE || clean.LANG || '')) clean.LC_ALL = 'C.UTF-8'
  const r = spawnSync(server.bin, ['-S', server.socket, ...args], {encoding: 'utf8', env: clean, maxBuffer: 32 * 1024 * 1024, timeout: 5000})
  return {ok: r.status === 0 && !r.error, stderr: r.stderr ?? String(r.error ?? ''), stdout: r.stdout ?? ''}
}

export interface PaneInfo {
  readonly id: string
  readonly pid: number
  readonly dead: boolean
  readonly address: string
}

// Space-separated (a session name, which may hold spaces, comes last): tmux may print a tab as '_'.
const LIST_FORMAT = '#{pane_id} #{pane_pid} #{pane_dead} #{session_name}:#{window_index}.#{pane_index}'

export function parsePaneList(out: string): PaneInfo[] {
  const panes: PaneInfo[] = []
  for (const line of out.split('\n')) {
    const [id, pid, dead, ...rest] = line.split(/[\t ]/)
    if (!id || !pid || !/^%\d+$/.test(id)) continue
    panes.push({address: rest.join(' '), dead: dead === '1', id, pid: Number(pid)})
  }

  return panes
}

/**
 * The visible screen of every pane in `ids`, in one tmux invocation: `display-message -p` prints
 * a marker line naming the pane, `capture-pane -p -J` its screen. tmux stops a command sequence
 * at the first failing command (a pane closed since the listing): the panes after it are
 * captured in one more invocation, without the one that failed.
 */
export function capturePanes(server: TmuxServer, ids: readonly string[], env: Readonly<Record<string, string | undefined>>): {screens: Map<string, string>; calls: number} {
  const screens = new Map<string, string>()
  let todo = [...ids]
  let calls = 0
  const nonce = `${process.pid}-${Date.now().toString(36)}`
  const marker = `\u001ecast-screen ${nonce} `
  while (todo.length > 0 && calls < 2) {
    const args: string[] = []
    for (const id of todo) {
      if (args.length > 0) args.push(';')
      // The marker names the pane without its '%' (display-message expands strftime sequences).
      args.push('display-message', '-p', '-t', id, `${marker}${id.slice(1)}`, ';', 'capture-pane', '-p', '-J', '-t', id)
    }

    calls++
    const r = runTmux(server, args, env)
    let current: string | null = null
    let buf: string[] = []
    const flush = (): void => {
      if (current !== null) screens.set(current, buf.join('\n'))
    }

    for (const line of r.stdout.split('\n')) {
      if (line.startsWith(marker)) {
        flush()
        current = `%${line.slice(marker.length).trim()}`
        buf = []
      } else if (current !== null) {
        buf.push(line)
      }
    }

    if (r.ok) {
      flush()
      break
    }

    // The sequence stopped at the pane tmux names: a pane captured before it is complete.
    const failed = /(%\d+)/.exec(r.stderr)?.[1]
    if (current !== null && current !== failed) flush()
    if (failed === undefined) break
    todo = todo.filter((id) => !screens.has(id) && id !== failed)
  }

  return {calls, screens}
}

// ---------------------------------------------------------------------------------------------
// Processes

const INTERPRETERS = new Set(['node', 'nodejs', 'bun', 'deno', 'sh', 'bash', 'dash', 'zsh', 'python', 'python3'])

/** The names a process goes by: its comm, argv[0]'s basename, and argv[1]'s when argv[0] is an interpreter. */
export function processNames(pid: number): string[] {
  const names: string[] = []
  const comm = processName(pid)
  if (comm) names.push(comm)
  const argv = processArgv(pid)
  const a0 = argv[0] ? path.basename(argv[0]) : null
  if (a0) names.push(a0)
  if (a0 && INTERPRETERS.has(a0.replace(/[\d.]+$/, '')) && argv[1] && !argv[1].startsWith('-')) names.push(path.basename(argv[1]))
  return names
}

let childrenFiles: boolean | undefined
let ppidMap: Map<number, number[]> | null = null

/** Children of a process: /proc/<pid>/task/<tid>/children, else one scan of /proc per sweep. */
function childrenOf(pid: number): number[] {
  childrenFiles ??= fs.existsSync(`/proc/${process.pid}/task/${process.pid}/children`)
  if (childrenFiles) {
    const out: number[] = []
    let tasks: string[]
    try {
      tasks = fs.readdirSync(`/proc/${pid}/task`)
    } catch {
      return out
    }

    for (const t of tasks) {
      try {
        for (const c of fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').split(' ')) if (c.trim()) out.push(Number(c))
      } catch {
        // gone
      }
    }

    return out
  }

  if (ppidMap === null) {
    ppidMap = new Map()
    let pids: string[] = []
    try {
      pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))
    } catch {
      pids = []
    }

    for (const p of pids) {
      try {
        const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8')
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
        ppidMap.set(ppid, [...(ppidMap.get(ppid) ?? []), Number(p)])
      } catch {
        // gone
      }
    }
  }

  return ppidMap.get(pid) ?? []
}

export interface AgentPane {
  readonly pane: PaneInfo
  /** The tmux server's socket (pane ids are unique per server only). */
  readonly socket?: string
  readonly agent: Agent
  /** The agent process nearest the pane's first process. */
  readonly pid: number
  /** Every process in the pane (its first process and all descendants, bounded). */
  readonly pids: ReadonlySet<number>
  readonly cwd: string | null
  readonly startedAt: number | null
}

const MAX_TREE = 512

/** The agent a pane runs: the shallowest process in its tree whose name is an agent's. */
export function agentOfPane(pane: PaneInfo, processes: ReadonlyMap<string, Agent>): AgentPane | null {
  const order: number[] = [pane.pid]
  const pids = new Set<number>(order)
  let hit: {pid: number; agent: Agent} | null = null
  for (let i = 0; i < order.length && order.length < MAX_TREE; i++) {
    const pid = order[i]!
    if (hit === null) {
      for (const name of processNames(pid)) {
        const agent = processes.get(name)
        if (agent) {
          hit = {agent, pid}
          break
        }
      }
    }

    for (const c of childrenOf(pid)) {
      if (pids.has(c) || isSharedServer(c)) continue
      pids.add(c)
      order.push(c)
    }
  }

  if (hit === null) return null
  let cwd: string | null = null
  try {
    cwd = fs.readlinkSync(`/proc/${hit.pid}/cwd`)
  } catch {
    cwd = null
  }

  return {agent: hit.agent, cwd, pane, pid: hit.pid, pids, startedAt: processStartTime(hit.pid)}
}

// ---------------------------------------------------------------------------------------------
// Tying a pane to a session

/** A session started before its process only if it was resumed; allow this much clock slack. */
const START_SLACK_MS = 5000
/** How long a tie is trusted while the store changes under it (it is redone at once when the pane changes). */
export const TIE_REFRESH_MS = 6000

export interface PaneTie {
  readonly nativeId: string
  readonly via: 'pid' | 'cwd'
}

interface Mapped extends PaneTie {
  readonly ap: AgentPane
}

/** Regular files a process holds open, from /proc/<pid>/fd. */
function openFiles(pid: number): string[] {
  let fds: string[]
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`)
  } catch {
    return []
  }

  const out: string[] = []
  for (const fd of fds) {
    try {
      const target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`)
      if (target.startsWith('/') && !target.startsWith('/dev/') && !target.startsWith('/proc/')) out.push(target)
    } catch {
      // closed in the meantime
    }
  }

  return out
}

/**
 * The session one agent pane shows, or null. By pid: a session whose registry or lock file
 * (a file named after the pid) claims one of the pane's agent processes, alive and with the same
 * start time; or whose transcript an agent process in the pane holds open. Several sessions: the
 * top-level one, if only one is. Otherwise by directory: the one top-level session of that agent
 * in the agent process's cwd that was active since the process started and is not run by a live
 * process elsewhere. Never a guess between several.
 */
export function tiePane(store: Store, ap: AgentPane, processes: ReadonlyMap<string, Agent>): PaneTie | null {
  const agentPids = [...ap.pids].filter((pid) => pid === ap.pid || processNames(pid).some((n) => processes.get(n) === ap.agent))
  const hits = new Map<string, string | null>()
  for (const pid of agentPids) {
    for (const row of contributionsNamingPid(store, pid)) {
      if (row.agent !== ap.agent) continue
      let claim: {pid?: unknown; startedAt?: unknown} | undefined
      try {
        claim = (JSON.parse(row.data) as {processClaim?: {pid?: unknown; startedAt?: unknown}}).processClaim
      } catch {
        continue
      }

      if (claim?.pid !== pid) continue
      if (!isSameProcessAlive(pid, typeof claim.startedAt === 'number' ? claim.startedAt : null)) continue
      hits.set(row.nativeId, row.parentId)
    }

    for (const file of openFiles(pid)) {
      for (const row of contributionsAtPath(store, file)) if (row.agent === ap.agent && row.known) hits.set(row.nativeId, row.parentId)
    }
  }

  const top = [...hits].filter(([, parent]) => parent === null)
  if (hits.size === 1) return {nativeId: [...hits.keys()][0]!, via: 'pid'}
  if (hits.size > 1) return top.length === 1 ? {nativeId: top[0]![0], via: 'pid'} : null
  if (ap.cwd === null) return null
  const candidates = sessionsInCwd(store, ap.agent, ap.cwd).filter((c) => {
    if (c.parentId !== null) return false
    // Run by a live process elsewhere, unless that process is a server every TUI shares.
    if (c.alive && c.pid !== null && !ap.pids.has(c.pid) && !isSharedServer(c.pid)) return false
    if (ap.startedAt !== null && (c.lastActivityAt === null || c.lastActivityAt < ap.startedAt - START_SLACK_MS)) return false
    return true
  })
  if (candidates.length === 1) return {nativeId: candidates[0]!.nativeId, via: 'cwd'}
  // Several in the folder: the one session created just after this process started is the one
  // it started (Codex creates its thread as the TUI comes up; each TUI its own).
  if (candidates.length > 1 && ap.startedAt !== null) {
    const born = candidates.filter((c) => c.createdAt !== null && c.createdAt >= ap.startedAt! - BORN_SLACK_MS && c.createdAt <= ap.startedAt! + BORN_WINDOW_MS)
    if (born.length === 1) return {nativeId: born[0]!.nativeId, via: 'cwd'}
  }

  return null
}

/** A session created this long after its process started was created by it. */
const BORN_WINDOW_MS = 20_000
const BORN_SLACK_MS = 2000

/**
 * A server process every TUI of an agent shares (Codex's `codex app-server` daemon, started by
 * the first TUI and outliving it): never part of a pane's tree, never one session's process.
 */
export function isSharedServer(pid: number): boolean {
  return processArgv(pid).includes('app-server')
}

/**
 * Ties for every agent pane, reusing the last sweep's for a pane whose process is the same while
 * the store did not change, or changed less than TIE_REFRESH_MS ago: a sweep over panes nobody
 * touched reads no session rows. A session two panes claim goes to the one tied by pid; if that
 * does not decide, to neither.
 */
const ties = new WeakMap<Store, Map<string, {tie: PaneTie | null; storeKey: string; at: number}>>()

export function mapPanes(store: Store, panes: readonly AgentPane[], processes: ReadonlyMap<string, Agent>): Mapped[] {
  let cache = ties.get(store)
  if (!cache) ties.set(store, (cache = new Map()))
  const storeKey = storeChangeKey(store)
  const now = Date.now()
  const seen = new Set<string>()
  const out: Mapped[] = []
  for (const ap of panes) {
    const key = `${ap.socket ?? ''}:${ap.pane.id}:${ap.agent}:${ap.pid}:${ap.startedAt}:${ap.cwd}`
    seen.add(key)
    let entry = cache.get(key)
    if (!entry || (entry.storeKey !== storeKey && now - entry.at >= TIE_REFRESH_MS)) {
      entry = {at: now, storeKey, tie: tiePane(store, ap, processes)}
      cache.set(key, entry)
    }

    if (entry.tie) out.push({...entry.tie, ap})
  }

  for (const key of cache.keys()) if (!seen.has(key)) cache.delete(key)
  const bySession = new Map<string, Mapped[]>()
  for (const m of out) {
    const k = `${m.ap.agent}\0${m.nativeId}`
    bySession.set(k, [...(bySession.get(k) ?? []), m])
  }

  const result: Mapped[] = []
  for (const list of bySession.values()) {
    if (list.length === 1) result.push(list[0]!)
    else {
      const pid = list.filter((m) => m.via === 'pid')
      if (pid.length === 1) result.push(pid[0]!)
    }
  }

  return result
}

// ---------------------------------------------------------------------------------------------
// The sweep

function signature(reading: ScreenReading, screen: string): string {
  if (reading.kind === 'busy') return 'busy'
  if (reading.kind === 'idle') return `idle:${hash(screen)}`
  return `${reading.kind}:${reading.text}`
}

/** FNV-1a over the text: enough to tell "the screen did not change". */
function hash(text: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }

  return (h >>> 0).toString(16)
}

export interface SweepOptions {
  readonly env: Readonly<Record<string, string | undefined>>
  readonly clock: () => number
  /** Agents whose sessions the process scan covers (adapters with `processScan`). */
  readonly scanAgents?: ReadonlySet<Agent>
}

/**
 * One sweep: list panes, find the agent panes, tie them to sessions, capture them at once, read
 * them, and store what changed (one transaction, recomposing the sessions touched). Never throws:
 * a failure is reported in the stats and the stored readings are left as they were.
 */
export function sweepScreens(store: Store, ingester: Ingester, matcher: ScreenMatcher, options: SweepOptions): ScreenSweepStats {
  const stats: ScreenSweepStats = {agentPanes: 0, calls: 0, mapped: 0, panes: 0, removed: 0, servers: 0, tmux: 'ok', transitions: 0, written: 0}
  ppidMap = null
  const tied: TiedProcess[] = []
  try {
    const existing = screenContributions(store)
    const {servers, why} = tmuxServers(options.env)
    // The readings this sweep answers for: kept when a pane still shows them, removed otherwise.
    const answered: typeof existing = []
    const swept: string[] = []
    const agentPanes: AgentPane[] = []
    const serverOf = new Map<string, TmuxServer>()
    let ok = 0
    for (const server of servers) {
      const prefix = `${PATH_PREFIX}${server.socket}/`
      const mine = existing.filter((e) => e.path.startsWith(prefix))
      stats.calls++
      const listed = runTmux(server, ['list-panes', '-a', '-F', LIST_FORMAT], options.env)
      if (!listed.ok) {
        const gone = /no server|error connecting|No such file|Connection refused|server exited|lost server/i.test(listed.stderr)
        // No server answers on this socket: its panes are gone, and what they showed with them.
        if (gone) {
          swept.push(prefix)
          answered.push(...mine)
        } else stats.error = listed.stderr.trim()
        continue
      }

      ok++
      swept.push(prefix)
      answered.push(...mine)
      serverOf.set(server.socket, server)
      const panes = parsePaneList(listed.stdout).filter((p) => !p.dead)
      stats.panes += panes.length
      for (const p of panes) {
        const ap = agentOfPane(p, matcher.processes)
        if (ap) agentPanes.push({...ap, socket: server.socket})
      }
    }

    stats.servers = ok
    if (servers.length === 0) stats.tmux = why ?? 'no_server'
    else if (ok === 0) stats.tmux = stats.error ? 'error' : 'no_server'
    // Readings of servers this sweep did not reach stand while their agent process lives.
    answered.push(...existing.filter((e) => !swept.some((p) => e.path.startsWith(p)) && !readingProcessAlive(e.data)))
    stats.agentPanes = agentPanes.length
    const mapped = agentPanes.length > 0 ? mapPanes(store, agentPanes, matcher.processes) : []
    stats.mapped = mapped.length
    const desired: Desired[] = []
    for (const [socket, server] of serverOf) {
      const here = mapped.filter((m) => m.ap.socket === socket)
      if (here.length === 0) continue
      const cap = capturePanes(
        server,
        here.map((m) => m.ap.pane.id),
        options.env,
      )
      stats.calls += cap.calls
      for (const m of here) {
        tied.push({agent: m.ap.agent, nativeId: m.nativeId, pane: m.ap.pane.id, pid: m.ap.pid, startedAt: m.ap.startedAt})
        const screen = cap.screens.get(m.ap.pane.id)
        if (screen === undefined) continue
        const reading = matcher.match(m.ap.agent, screen)
        if (reading === null) continue
        desired.push({
          agent: m.ap.agent,
          nativeId: m.nativeId,
          obs: {
            address: m.ap.pane.address,
            kind: reading.kind,
            pane: m.ap.pane.id,
            pid: m.ap.pid,
            sig: signature(reading, screen),
            startedAt: m.ap.startedAt,
            text: reading.text,
            via: m.via,
          },
          path: `${PATH_PREFIX}${socket}/${m.ap.pane.id}`,
        })
      }
    }

    write(store, ingester, answered, desired, options.clock(), stats)
  } catch (error) {
    stats.tmux = 'error'
    stats.error = (error as Error).message
  }

  // The process scan (process-scan.ts): the pane ties found above, then /proc.
  try {
    const scan = scanSessions(store, ingester, {agents: options.scanAgents ?? new Set(), names: matcher.processes, now: options.clock(), tied})
    stats.transitions += scan.transitions
    stats.scanned = scan.scanned
  } catch (error) {
    stats.error ??= (error as Error).message
  }

  return stats
}

interface Desired {
  readonly path: string
  readonly agent: Agent
  readonly nativeId: string
  readonly obs: Omit<ScreenObservation, 'since' | 'confirmedAt'>
}

/** Is the agent process a stored reading was taken from still running? */
function readingProcessAlive(data: string): boolean {
  let obs: ScreenObservation | null = null
  try {
    obs = screenObservationOf(JSON.parse(data) as Contribution)
  } catch {
    return false
  }

  return obs !== null && isSameProcessAlive(obs.pid, obs.startedAt ?? null)
}

/**
 * Store what changed: `existing` are the readings this sweep answers for (kept when still
 * desired, removed otherwise), `desired` what the panes show now.
 */
function write(
  store: Store,
  ingester: Ingester,
  existing: readonly {path: string; agent: string; nativeId: string; data: string}[],
  desired: readonly Desired[],
  now: number,
  stats: ScreenSweepStats,
): void {
  const old = new Map(existing.map((e) => [e.path, e]))
  const writes: {path: string; agent: Agent; nativeId: string; data: string}[] = []
  for (const d of desired) {
    const prev = old.get(d.path)
    let prevObs: ScreenObservation | null = null
    if (prev && prev.agent === d.agent && prev.nativeId === d.nativeId) {
      try {
        prevObs = screenObservationOf(JSON.parse(prev.data) as Contribution)
      } catch {
        prevObs = null
      }
    }

    const same = prevObs !== null && prevObs.sig === d.obs.sig
    const since = same ? prevObs!.since : now
    const confirmedAt = same ? (prevObs!.confirmedAt ?? (now - since >= IDLE_CONFIRM_MS ? now : null)) : null
    const obs: ScreenObservation = {...d.obs, confirmedAt, since}
    const contribution: Contribution = {extra: {screen: obs}, facts: {}, nativeId: d.nativeId, priority: SCREEN_PRIORITY}
    const data = JSON.stringify(contribution)
    if (prev && prev.data === data && prev.agent === d.agent && prev.nativeId === d.nativeId) continue
    writes.push({agent: d.agent, data, nativeId: d.nativeId, path: d.path})
  }

  const keep = new Set(desired.map((d) => d.path))
  const removals = existing.filter((e) => !keep.has(e.path) || writes.some((w) => w.path === e.path && (w.agent !== e.agent || w.nativeId !== e.nativeId)))
  if (writes.length === 0 && removals.length === 0) return
  const r = store.tx(() => {
    const touched = new Map<string, {agent: Agent; nativeId: string}>()
    for (const e of removals) {
      for (const a of store.deleteFile(e.path)) touched.set(`${a.agent}\0${a.nativeId}`, {agent: a.agent as Agent, nativeId: a.nativeId})
    }

    for (const w of writes) {
      store.upsertContribution(w.path, w.agent, 'screen', w.nativeId, w.data, now)
      touched.set(`${w.agent}\0${w.nativeId}`, {agent: w.agent, nativeId: w.nativeId})
    }

    return ingester.recompose([...touched.values()])
  })
  stats.written += writes.length
  stats.removed += removals.length
  stats.transitions += r.transitions
}

// ---------------------------------------------------------------------------------------------
// Wiring: the sweep an ingester runs (set by src/lib/ingest.ts, called by live.ts and syncBeforeRead)

const sweeps = new WeakMap<Ingester, () => ScreenSweepStats>()

export function attachScreenSweep(ingester: Ingester, sweep: () => ScreenSweepStats): void {
  sweeps.set(ingester, sweep)
}

export function screenSweepOf(ingester: Ingester): (() => ScreenSweepStats) | undefined {
  return sweeps.get(ingester)
}

/**
 * `screen_patterns` from the config file, read synchronously (the sweep runs inside synchronous
 * syncs). A missing or unparsable file gives none: the commands that load the config report its
 * errors.
 */
export function readScreenOverrides(file: string): Record<string, Record<string, string[]>> {
  let raw: unknown
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch {
    return {}
  }

  const sp = isObject(raw) ? raw['screen_patterns'] : undefined
  if (!isObject(sp)) return {}
  const out: Record<string, Record<string, string[]>> = {}
  for (const [agent, kinds] of Object.entries(sp)) {
    if (!isObject(kinds)) continue
    const k: Record<string, string[]> = {}
    for (const [kind, list] of Object.entries(kinds)) if (Array.isArray(list)) k[kind] = list.filter((p): p is string => typeof p === 'string')
    out[agent] = k
  }

  return out
}
