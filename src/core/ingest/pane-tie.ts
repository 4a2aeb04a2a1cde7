/**
 * Which agent a tmux pane runs, and which session it shows (see screen.ts's module comment): the
 * pane's process tree from /proc, then the session whose registry, lock or open transcript names
 * a process in that tree, else the one session of that agent in the process's folder that was
 * active during its life. Never a guess between several.
 */
import type {Agent} from '../model/types.js'
import {contributionsNamingPid, screenContributions, sessionsInCwd, storeChangeKey} from '../store/screen.js'
import type {Store} from '../store/store.js'
import {childrenOf, isSameProcessAlive, processArgv, processCwd, processNames, processStartTime} from './process-table.js'
import {listAgentProcesses} from './agent-processes.js'
import {screenObservationIn} from './screen-overlay.js'
import {birthInDoubt, bornOfAnother, type Creator, sessionBornOf} from './thread-birth.js'
import {openFileSessions} from './open-files.js'
import type {PaneInfo} from './tmux.js'

export {forgetProcessTree, processNames} from './process-table.js'

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
  return {agent: hit.agent, cwd: processCwd(hit.pid), pane, pid: hit.pid, pids, startedAt: processStartTime(hit.pid)}
}

/** A session started before its process only if it was resumed; allow this much clock slack. */
const START_SLACK_MS = 5000
/** How long a tie is trusted while the store changes under it (it is redone at once when the pane changes). */
export const TIE_REFRESH_MS = 6000

export interface PaneTie {
  readonly nativeId: string
  readonly via: 'pid' | 'cwd'
}

export interface Mapped extends PaneTie {
  readonly ap: AgentPane
}

/**
 * The session one agent pane shows, or null. By pid: a session whose registry or lock file
 * (a file named after the pid) claims one of the pane's agent processes, alive and with the same
 * start time; or whose transcript an agent process in the pane holds open (a file every process
 * holds names a session only through where the process's descriptor stands: the contribution's
 * `heldAt`, src/core/ingest/adapter.ts; a process holding one is never tied by folder). Several sessions: the
 * top-level one, if only one is. Otherwise by directory: the one top-level session of that agent
 * in the agent process's cwd that was active since the process started and is not run by a live
 * process elsewhere. Never a guess between several.
 */
export function tiePane(
  store: Store,
  ap: AgentPane,
  processes: ReadonlyMap<string, Agent>,
  bornAgents: ReadonlySet<Agent> = new Set(),
): PaneTie | null {
  const t = tieOf(store, ap, processes, bornAgents)
  return t === UNREAD ? null : t
}

/**
 * No tie because where the process stands in a shared file names no session: its run named none
 * yet, or its latest line is not read yet. The sweep keeps the pane's last tie (none for a fresh
 * process) rather than drop it while the reader catches up.
 */
const UNREAD = 'unread'

function tieOf(
  store: Store,
  ap: AgentPane,
  processes: ReadonlyMap<string, Agent>,
  bornAgents: ReadonlySet<Agent>,
): PaneTie | null | typeof UNREAD {
  const agentPids = [...ap.pids].filter((pid) => pid === ap.pid || processNames(pid).some((n) => processes.get(n) === ap.agent))
  const hits = new Map<string, string | null>()
  let shared = false
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

    const open = openFileSessions(store, pid, ap.agent)
    for (const [id, parent] of open.sessions) hits.set(id, parent)
    shared ||= open.shared
  }

  const top = [...hits].filter(([, parent]) => parent === null)
  if (hits.size === 1) return {nativeId: [...hits.keys()][0]!, via: 'pid'}
  if (hits.size > 1) return top.length === 1 ? {nativeId: top[0]![0], via: 'pid'} : null
  // Its files say which session a process shows, and say none yet (or not yet read): no guess by folder.
  if (shared) return UNREAD
  if (ap.cwd === null) return null
  const creators = bornAgents.has(ap.agent) ? creatorsIn(ap, processes) : null
  // An agent whose process creates its session as it starts (thread-birth.ts): a session another
  // live process of it in this folder created is not this pane's, nor one whose own pane's process
  // was found gone (screen.ts keeps that reading, marked gone).
  const goneElsewhere = creators === null ? new Set<string>() : sessionsOfGonePanes(store, ap)
  const inCwd = sessionsInCwd(store, ap.agent, ap.cwd).filter((c) => c.parentId === null && !goneElsewhere.has(c.nativeId))
  const candidates = inCwd.filter((c) => {
    // Run by a live process elsewhere, unless that process is a server every TUI shares.
    if (c.alive && c.pid !== null && !ap.pids.has(c.pid) && !isSharedServer(c.pid)) return false
    if (ap.startedAt !== null && (c.lastActivityAt === null || c.lastActivityAt < ap.startedAt - START_SLACK_MS)) return false
    if (creators !== null && (bornOfAnother(creators, ap.pid, c) || birthInDoubt(creators, ap.pid, c, inCwd))) return false
    return true
  })
  if (candidates.length === 1) return {nativeId: candidates[0]!.nativeId, via: 'cwd'}
  // Several in the folder: the one this process created, if that is known.
  if (candidates.length > 1 && creators !== null) {
    const born = sessionBornOf(creators, ap.pid, inCwd)
    if (born !== null && candidates.some((c) => c.nativeId === born)) return {nativeId: born, via: 'cwd'}
  }

  // Other agents: the one session created just after this process started, if one is.
  if (candidates.length > 1 && creators === null && ap.startedAt !== null) {
    const born = candidates.filter(
      (c) => c.createdAt !== null && c.createdAt >= ap.startedAt! - BORN_SLACK_MS && c.createdAt <= ap.startedAt! + BORN_WINDOW_MS,
    )
    if (born.length === 1) return {nativeId: born[0]!.nativeId, via: 'cwd'}
  }

  return null
}

/** A session created this long after its process started was created by it (agents without `sessionAtStart`). */
const BORN_WINDOW_MS = 20_000
const BORN_SLACK_MS = 2000

/** The sessions of the pane's agent whose pane's process (not this pane's) was found gone. */
function sessionsOfGonePanes(store: Store, ap: AgentPane): Set<string> {
  const out = new Set<string>()
  for (const row of screenContributions(store)) {
    if (row.agent !== ap.agent) continue
    const obs = screenObservationIn(row.data)
    if (obs !== null && typeof obs.gone === 'number' && obs.pid !== ap.pid) out.add(row.nativeId)
  }

  return out
}

/** The live processes of the pane's agent in its folder (shared servers are none), the pane's own among them. */
function creatorsIn(ap: AgentPane, processes: ReadonlyMap<string, Agent>): Creator[] {
  const out: Creator[] = []
  for (const p of listAgentProcesses(processes, new Set([ap.agent])) ?? []) {
    if (p.cwd !== ap.cwd || p.startedAt === null || p.pid === ap.pid || isSharedServer(p.pid)) continue
    out.push({pid: p.pid, startedAt: p.startedAt})
  }

  if (ap.startedAt !== null) out.push({pid: ap.pid, startedAt: ap.startedAt})
  return out
}

/**
 * A server process every TUI of an agent shares (an `app-server` daemon, started by
 * the first TUI and outliving it): never part of a pane's tree, never one session's process.
 */
export function isSharedServer(pid: number): boolean {
  return processArgv(pid).includes('app-server')
}

/**
 * Ties for every agent pane, reusing the last sweep's for a pane whose process is the same while
 * the store did not change, or changed less than TIE_REFRESH_MS ago: a sweep over panes nobody
 * touched reads no session rows. A process whose shared-file position names no session keeps its
 * pane's last tie. A session two panes claim goes to the one tied by pid; if that does not decide,
 * to neither.
 */
type TieCache = Map<string, {tie: PaneTie | null; storeKey: string; at: number}>
const ties = new WeakMap<Store, TieCache>()

export function mapPanes(
  store: Store,
  panes: readonly AgentPane[],
  processes: ReadonlyMap<string, Agent>,
  bornAgents: ReadonlySet<Agent> = new Set(),
): Mapped[] {
  let cache = ties.get(store)
  if (!cache) ties.set(store, (cache = new Map() as TieCache))
  const storeKey = storeChangeKey(store)
  const now = Date.now()
  const seen = new Set<string>()
  const out: Mapped[] = []
  for (const ap of panes) {
    const key = `${ap.socket ?? ''}:${ap.pane.id}:${ap.agent}:${ap.pid}:${ap.startedAt}:${ap.cwd}`
    seen.add(key)
    let entry = cache.get(key)
    if (!entry || (entry.storeKey !== storeKey && now - entry.at >= TIE_REFRESH_MS)) {
      const t = tieOf(store, ap, processes, bornAgents)
      entry = {at: now, storeKey, tie: t === UNREAD ? (entry?.tie ?? null) : t}
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
