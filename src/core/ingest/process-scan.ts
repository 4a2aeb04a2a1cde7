/**
 * The process scan (docs/contract.md §5 "where an agent has no registry"): for agents that keep
 * no registry outliving a crash (the adapter's `processScan`), find the process that runs each
 * unsettled session and record it as a liveness claim with its start time, so that a kill -9
 * reads `dead` within the next process re-check, also when cast never saw the process alive.
 *
 * Which process runs a session, in trust order:
 *   1. the agent process of a tmux pane the screen sweep tied to the session (by pid or folder);
 *   2. the one live process of that agent (names from its screen patterns) whose working folder is
 *      the session's and that started before the session's last activity (a process started
 *      later cannot have written it), and that no pane ties to another session;
 *   3. none: a claim that nothing runs it (pid of the last process seen, or 0). Several
 *      candidates and none tied: no claim at all (never a guess between several).
 * Stored as the contribution of a pseudo file `scan://<agent>/<native id>`; settled sessions and
 * sessions gone quiet for a day carry none. `applyScan` lays the claim under the adapter's own
 * process facts: it is used only where the adapter's files name no process.
 */
import type {Agent, ProcessFacts, SessionFacts} from '../model/types.js'
import {SCAN_PATH_PREFIX, scanContributions, sessionsActiveSince} from '../store/screen.js'
import type {Store} from '../store/store.js'
import {RUN_ID_PREFIX} from '../store/unwritten-runs.js'
import type {CheckedContribution, Contribution, ProcessClaim} from './adapter.js'
import {openFileSessions} from './open-files.js'
import {type AgentProcess, listAgentProcesses} from './agent-processes.js'
import {isSameProcessAlive} from './process-table.js'

/** Below the screen (5), registry (10) and hooks (20). */
export const SCAN_PRIORITY = 4
/** Sessions quiet for longer are not scanned (rule 8 has long since made them needs_input). */
export const SCAN_WINDOW_MS = 24 * 3600_000
/** Clock slack between a process's start and the activity it wrote. */
const START_SLACK_MS = 5000

/** A process a pane tied to a session (from the screen sweep). */
export interface TiedProcess {
  readonly agent: Agent
  readonly nativeId: string
  readonly pid: number
  readonly startedAt: number | null
  readonly pane: string
}

export function scanPath(agent: string, nativeId: string): string {
  return `${SCAN_PATH_PREFIX}${agent}/${nativeId}`
}

export function isScanContribution(c: Contribution): boolean {
  return c.processClaim?.source.kind === 'scan'
}

/**
 * The extra of a `scan://` contribution whose claim was taken while the session was at rest
 * (settled, or not started): it says only that the session is live, and its process gone is not
 * a crash. A claim taken while the session ran has no extra.
 */
export type ScanExtra = {readonly scan: 'at_rest'}

const AT_REST: ScanExtra = {scan: 'at_rest'}

/** Was this scan claim taken while the session was at rest? */
function takenAtRest(c: Pick<Contribution, 'extra'>): boolean {
  return c.extra?.['scan'] === 'at_rest'
}

/** The process claim in a stored contribution's JSON (null: none, or not JSON). */
function storedClaim(data: string): ProcessClaim | null {
  try {
    return (JSON.parse(data) as Contribution).processClaim ?? null
  } catch {
    return null
  }
}

/**
 * What a process's open files say it shows (pane-tie.ts `openFileSessions`): the sessions they
 * name, and whether it holds a file that names the session through where its descriptor stands.
 */
export type ShowsOf = (pid: number) => {readonly sessions: ReadonlyMap<string, string | null>; readonly shared: boolean}

const NOT_SHARED: ReturnType<ShowsOf> = {sessions: new Map(), shared: false}

/** The claim to store for one session, or null for none. */
export function claimFor(
  s: {agent: string; nativeId: string; cwd: string | null; lastActivityAt: number | null; atRest?: boolean},
  procs: readonly AgentProcess[],
  tied: ReadonlyMap<string, TiedProcess>,
  tiedPids: ReadonlySet<number>,
  previous: ProcessClaim | null,
  showsOf?: ShowsOf,
): ProcessClaim | null {
  const t = tied.get(`${s.agent}\0${s.nativeId}`)
  if (t)
    return {
      heartbeatAt: null,
      pid: t.pid,
      source: {kind: 'scan', ref: `tmux pane ${t.pane} runs pid ${t.pid}`},
      startedAt: t.startedAt,
      status: null,
    }
  // Its files say this process shows this session, or another one.
  const here = (pid: number): boolean => showsOf?.(pid).sessions.has(s.nativeId) === true
  const elsewhere = (pid: number): boolean => {
    const o = showsOf?.(pid)
    return o !== undefined && o.sessions.size > 0 && !o.sessions.has(s.nativeId)
  }
  // A process found before keeps the session while it lives (another one may have started since),
  // unless its files now say it shows another session.
  if (previous && previous.pid > 0 && isSameProcessAlive(previous.pid, previous.startedAt) && !elsewhere(previous.pid)) return previous
  const last = s.lastActivityAt ?? Number.POSITIVE_INFINITY
  // Once the process that ran it died, only one started after it (a resume) can run it again: an
  // older agent process in the same folder runs another session.
  const after = previous && previous.pid > 0 ? (previous.startedAt ?? Number.POSITIVE_INFINITY) : Number.NEGATIVE_INFINITY
  const candidates = procs.filter(
    (p) =>
      p.agent === s.agent &&
      s.cwd !== null &&
      p.cwd === s.cwd &&
      p.startedAt !== null &&
      p.startedAt <= last + START_SLACK_MS &&
      p.startedAt > after &&
      (!tiedPids.has(p.pid) || here(p.pid)) &&
      !elsewhere(p.pid) &&
      // A session at rest is only marked live by a process whose files name it, where they can
      // (a fresh TUI in the folder of an older session may show no session yet: see that agent's notes in docs/agents/).
      (!s.atRest || here(p.pid) || showsOf?.(p.pid).shared !== true),
  )
  if (candidates.length === 1) {
    const p = candidates[0]!
    return {
      heartbeatAt: null,
      pid: p.pid,
      source: {kind: 'scan', ref: `pid ${p.pid} (${s.agent} in ${s.cwd})`},
      startedAt: p.startedAt,
      status: null,
    }
  }

  if (candidates.length > 1) return null
  // The process found before lives on but shows another session now: it runs this one no more.
  const moved = previous !== null && previous.pid > 0 && isSameProcessAlive(previous.pid, previous.startedAt)
  const pid = moved ? 0 : (previous?.pid ?? 0)
  return {
    heartbeatAt: null,
    pid,
    source: {kind: 'scan', ref: pid > 0 ? `pid ${pid} is gone; no ${s.agent} process runs it` : `no ${s.agent} process runs it`},
    startedAt: moved ? null : (previous?.startedAt ?? null),
    status: null,
  }
}

export interface ScanStats {
  scanned: number
  /** The agent processes this scan listed (undefined: it listed none), for unwritten-runs.ts. */
  procs?: AgentProcess[]
  written: number
  removed: number
  transitions: number
}

/** A planned claim: a session, its scan contribution's path and previous data, the claim. */
interface Planned {
  readonly s: {readonly agent: string; readonly nativeId: string}
  readonly path: string
  readonly prev: string | undefined
  readonly claim: ProcessClaim
  readonly atRest: boolean
  readonly fresh: boolean
}

/** The contributions to write (changed ones only) and the paths to keep, from the planned claims. */
function writesOf(planned: readonly Planned[]): {
  keep: Set<string>
  writes: {path: string; agent: string; nativeId: string; data: string}[]
} {
  // One process found by folder for several sessions runs at most one of them: none gets it.
  const wanted = new Map<number, number>()
  for (const p of planned) if (p.fresh && p.claim.pid > 0) wanted.set(p.claim.pid, (wanted.get(p.claim.pid) ?? 0) + 1)
  const writes: {path: string; agent: string; nativeId: string; data: string}[] = []
  const keep = new Set<string>()
  for (const p of planned) {
    if (p.fresh && p.claim.pid > 0 && (wanted.get(p.claim.pid) ?? 0) > 1) continue
    keep.add(p.path)
    const c: Contribution<ScanExtra> = {
      facts: {},
      nativeId: p.s.nativeId,
      priority: SCAN_PRIORITY,
      processClaim: p.claim,
      ...(p.atRest ? {extra: AT_REST} : {}),
    }
    const data = JSON.stringify(c)
    if (p.prev === data) continue
    writes.push({agent: p.s.agent, data, nativeId: p.s.nativeId, path: p.path})
  }
  return {keep, writes}
}

/** The pid of each stored claim whose process still runs, with the claim's path. */
function liveClaims(existing: Iterable<{path: string; data: string}>): Map<number, string> {
  const claimedBy = new Map<number, string>()
  for (const e of existing) {
    const c = storedClaim(e.data)
    if (c && c.pid > 0 && isSameProcessAlive(c.pid, c.startedAt)) claimedBy.set(c.pid, e.path)
  }

  return claimedBy
}

/** Which sessions a process shows by where it stands in a shared file (open-files.ts), asked once per process and agent in a scan. */
function showsCache(store: Store): (agent: Agent) => ShowsOf {
  const shown = new Map<string, ReturnType<ShowsOf>>()
  return (agent: Agent): ShowsOf =>
    (pid) => {
      const key = `${agent}\0${pid}`
      let o = shown.get(key)
      if (!o) {
        o = openFileSessions(store, pid, agent)
        // Only a file that names the session a process shows by where it stands decides here; a
        // transcript held open is the pane tie's evidence (pane-tie.ts), not the scan's.
        shown.set(key, (o = o.shared ? o : NOT_SHARED))
      }

      return o
    }
}

/** What a scan needs of the ingester: recompose the sessions whose claims it changed (engine.ts). */
export interface Recomposer {
  recompose(sessions: readonly {agent: Agent; nativeId: string}[]): {sessions: number; transitions: number}
}

/**
 * One scan: store, for every unsettled top-level session of a scanned agent active in the last
 * day, the process that runs it (or that none does); remove the claims of the others. One
 * transaction, recomposing the sessions touched. Reads /proc only when some session needs it.
 */
export function scanSessions(
  store: Store,
  ingester: Recomposer,
  opts: {
    agents: ReadonlySet<Agent>
    names: ReadonlyMap<string, Agent>
    tied: readonly TiedProcess[]
    now: number
    /** The sweep's own scan of /proc (every agent's processes), when it made one. */
    procs?: readonly AgentProcess[]
  },
): ScanStats {
  const stats: ScanStats = {removed: 0, scanned: 0, transitions: 0, written: 0}
  if (opts.agents.size === 0) return stats
  const existing = new Map(scanContributions(store).map((e) => [e.path, e]))
  // Unsettled sessions get a claim either way (the process, or that none runs it); sessions at
  // rest (settled, or not started) only a live process, so `live` is true while the TUI sits at
  // its prompt and nothing reads dead when the user quits it.
  // A run listed from its process (unwritten-runs.ts) carries its own claim.
  const sessions = sessionsActiveSince(store, [...opts.agents], opts.now - SCAN_WINDOW_MS).filter(
    (s) => s.parentId === null && !s.nativeId.startsWith(RUN_ID_PREFIX),
  )
  if (sessions.length === 0 && existing.size === 0) return stats
  const listed = sessions.length > 0 ? (opts.procs ?? listAgentProcesses(opts.names, opts.agents)) : []
  const procs = listed === null ? null : listed.filter((p) => opts.agents.has(p.agent))
  if (procs !== null && sessions.length > 0) stats.procs = procs
  if (procs !== null && procs.length === 0 && sessions.every((s) => s.settled || s.messages === 0) && existing.size === 0) return stats
  if (procs === null) return stats
  stats.scanned = sessions.length
  const tied = new Map(opts.tied.map((t) => [`${t.agent}\0${t.nativeId}`, t]))
  // A process a pane ties to a session, or that the scan found for one, is no other session's.
  const tiedPids = new Set(opts.tied.map((t) => t.pid))
  const claimedBy = liveClaims(existing.values())
  const showsOf = showsCache(store)
  const planned: Planned[] = []
  for (const s of sessions) {
    const path = scanPath(s.agent, s.nativeId)
    const prev = existing.get(path)
    const previous = prev ? storedClaim(prev.data) : null

    const others = new Set([...tiedPids, ...[...claimedBy].filter(([, p]) => p !== path).map(([pid]) => pid)])
    const atRest = s.settled || s.messages === 0
    const claim = claimFor({...s, atRest}, procs, tied, others, previous, showsOf(s.agent))
    if (claim === null) continue
    if (atRest && (claim.pid <= 0 || !isSameProcessAlive(claim.pid, claim.startedAt))) continue
    // Fresh: found in this scan by folder (not a pane, not kept from before).
    const fresh = !tied.has(`${s.agent}\0${s.nativeId}`) && !(previous !== null && previous.pid === claim.pid)
    planned.push({atRest, claim, fresh, path, prev: prev?.data, s})
  }

  const {keep, writes} = writesOf(planned)
  const removals = [...existing.values()].filter((e) => !keep.has(e.path))
  if (writes.length === 0 && removals.length === 0) return stats
  const r = store.tx(() => {
    const touched = new Map<string, {agent: Agent; nativeId: string}>()
    for (const e of removals)
      for (const a of store.deleteFile(e.path)) touched.set(`${a.agent}\0${a.nativeId}`, {agent: a.agent, nativeId: a.nativeId})
    for (const w of writes) {
      store.upsertContribution(w.path, w.agent, 'scan', w.nativeId, w.data, opts.now)
      touched.set(`${w.agent}\0${w.nativeId}`, {agent: w.agent, nativeId: w.nativeId})
    }

    return ingester.recompose([...touched.values()])
  })
  stats.written = writes.length
  stats.removed = removals.length
  stats.transitions = r.transitions
  return stats
}

/**
 * Lay the scan's claim under the adapter's facts: only when the adapter's own files name no
 * process. Pure; `contributions` may hold any sources, only scan ones count.
 */
export function applyScan(facts: SessionFacts, contributions: readonly CheckedContribution[]): SessionFacts {
  if (facts.process !== null) return facts
  const c = contributions.find((x) => isScanContribution(x))
  if (!c?.processClaim) return facts
  const alive = c.processAlive === true
  // A claim taken while the session was at rest says only that it is live: once that process is
  // gone the user quit it, which is not a crash. Nor is a process gone after its turn settled in the
  // files (a one-shot run may exit right after its answer, before the next scan re-stamps the claim).
  if (!alive && (takenAtRest(c) || facts.settled)) return facts
  const process: ProcessFacts = {
    alive,
    exited: alive ? null : 'crash',
    heartbeatAt: null,
    pid: c.processClaim.pid,
    source: c.processClaim.source,
    status: null,
  }
  // A process gone leaves no dialog open behind it (an agent's log may keep a crashed session's
  // permission.requested open): it reads dead, never as an ask nobody can answer.
  const asks = alive ? {} : {approval: null, question: null}
  return {...facts, ...asks, process, sources: {...facts.sources, process: c.processClaim.source}}
}
