/**
 * The terminal fallback (docs/screen-and-doctor.md): for agents running in tmux panes,
 * read the bottom of each agent pane and let what it shows (a permission dialog, a question, an
 * error banner, busy, a plain prompt) stand in where the agent's own files cannot show a wait.
 *
 * Only the tmux servers an agent process runs under are asked (tmux-gate.ts; none: no tmux
 * process at all). Each costs one `tmux` invocation that captures every agent pane at once
 * (commands chained with `;`, each capture preceded by a marker line), and a `list-panes -a`
 * when the agents under it changed. Which pane is which agent comes from /proc (the pane's
 * process tree); which session a pane shows comes from the process the session's registry, lock
 * or open file handle names (a pid in the pane's tree), else from the agent process's working
 * directory when exactly one session of that agent there was active during the process's life.
 * Never a guess between several.
 *
 * What the screen shows is stored as a contribution of a pseudo file `screen://tmux<socket>/<pane>` with
 * empty facts, so no adapter's compose reads it; `applyScreen` lays it over the composed facts
 * (from Ingester.recompose) and only where no better source answers:
 *   - the composed facts already hold a hard block (approval, question, error): nothing;
 *   - a live process reports a status (a process registry, a hook): nothing;
 *   - the turn settled in the files: nothing (a plain prompt is what that means);
 *   - otherwise an unsettled turn: a dialog or banner becomes the hard block (docs/contract.md §3.5:
 *     approval, question, error), busy becomes a working process status, and a plain prompt
 *     that stayed the same across two sweeps settles the turn (no reason of its own).
 * A wait the files moved past (activity after the screen first showed it) is stale and ignored.
 * Every fact it sets names its source `{kind: 'screen', ref: 'tmux <pane> (<address>)'}`.
 *
 * The jobs live apart: the overlay in screen-overlay.ts (pure), the tmux client in tmux.ts, the
 * pane-to-session tying in pane-tie.ts; this module is the sweep, and re-exports the others.
 */

import type {Agent} from '../model/types.js'
import {screenContributions} from '../store/screen.js'
import type {Store} from '../store/store.js'
import type {Contribution} from './adapter.js'
import type {Ingester} from './engine.js'
import {type AgentPane, agentOfPane, forgetProcessTree, mapPanes} from './pane-tie.js'
import {type AgentProcess, listAgentProcesses} from './agent-processes.js'
import {type Recomposer, scanSessions, type TiedProcess} from './process-scan.js'
import {type AgentSockets, agentSockets, keepList, planServer} from './tmux-gate.js'
import {scanUnwrittenRuns, type SweepHost} from './unwritten-runs.js'
import {isSameProcessAlive} from './process-table.js'
import {
  IDLE_CONFIRM_MS,
  type ScreenMatcher,
  type ScreenObservation,
  type ScreenExtra,
  type ScreenReading,
  screenObservationIn,
} from './screen-overlay.js'
import {capturePanes, listPanes, parsePaneList, type TmuxServer, tmuxServers} from './tmux.js'

export * from './pane-tie.js'
export * from './screen-overlay.js'
export * from './tmux.js'

/** How often the live ingester sweeps. */
export {readScreenOverrides} from './screen-overrides.js'

export const SCREEN_SWEEP_MS = 2000
/** Below the transcript's neighbours: registry 10, hooks 20. */
export const SCREEN_PRIORITY = 5

/** `screen://tmux<socket>/<pane>`: pane ids are unique per server only. */
const PATH_PREFIX = 'screen://tmux'

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
  /** tmux servers not asked: no agent process runs under them (tmux-gate.ts). */
  skipped?: number
  /** Unsettled sessions the process scan looked at. */
  scanned?: number
  error?: string
}

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
  /** Agents whose process creates its session as it starts (adapters with `sessionAtStart`). */
  readonly bornAgents?: ReadonlySet<Agent>
}

/** List every server's panes: the agent panes, the servers that answered, and the readings this sweep answers for. */
function listServers(
  servers: readonly TmuxServer[],
  existing: ReturnType<typeof screenContributions>,
  env: SweepOptions['env'],
  matcher: ScreenMatcher,
  stats: ScreenSweepStats,
  agents: AgentSockets | null,
): {
  agentPanes: AgentPane[]
  answered: ReturnType<typeof screenContributions>
  ok: number
  serverOf: Map<string, TmuxServer>
  swept: string[]
} {
  // The readings this sweep answers for: kept when a pane still shows them, removed otherwise.
  const answered: typeof existing = []
  const swept: string[] = []
  const agentPanes: AgentPane[] = []
  const serverOf = new Map<string, TmuxServer>()
  let ok = 0
  for (const server of servers) {
    const prefix = `${PATH_PREFIX}${server.socket}/`
    const mine = existing.filter((e) => e.path.startsWith(prefix))
    const plan = planServer(server, agents, Date.now())
    // No agent process runs under this server (tmux-gate.ts): no pane of it shows an agent.
    if (plan.kind === 'skip') {
      stats.skipped = (stats.skipped ?? 0) + 1
      swept.push(prefix)
      answered.push(...mine)
      continue
    }

    let stdout: string
    if (plan.kind === 'reuse') stdout = plan.stdout
    else {
      stats.calls++
      const listed = listPanes(server, env)
      if (listed.ok) keepList(server, plan, listed.stdout, Date.now())
      else {
        const gone = /no server|error connecting|No such file|Connection refused|server exited|lost server/i.test(listed.stderr)
        // No server answers on this socket: its panes are gone, and what they showed with them.
        if (gone) {
          swept.push(prefix)
          answered.push(...mine)
        } else stats.error = listed.stderr.trim()
        continue
      }

      stdout = listed.stdout
    }

    ok++
    swept.push(prefix)
    answered.push(...mine)
    serverOf.set(server.socket, server)
    const panes = parsePaneList(stdout).filter((p) => !p.dead)
    stats.panes += panes.length
    for (const p of panes) {
      const ap = agentOfPane(p, matcher.processes)
      if (ap) agentPanes.push({...ap, socket: server.socket})
    }
  }
  return {agentPanes, answered, ok, serverOf, swept}
}

/** Capture the tied panes of each server at once and read them: the observations to store. */
function readPanes(
  serverOf: ReadonlyMap<string, TmuxServer>,
  mapped: ReturnType<typeof mapPanes>,
  matcher: ScreenMatcher,
  env: SweepOptions['env'],
  stats: ScreenSweepStats,
  tied: TiedProcess[],
): Desired[] {
  const desired: Desired[] = []
  for (const [socket, server] of serverOf) {
    const here = mapped.filter((m) => m.ap.socket === socket)
    if (here.length === 0) continue
    const cap = capturePanes(
      server,
      here.map((m) => m.ap.pane.id),
      env,
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
  return desired
}

/**
 * One sweep: list panes, find the agent panes, tie them to sessions, capture them at once, read
 * them, and store what changed (one transaction, recomposing the sessions touched). Never throws:
 * a failure is reported in the stats and the stored readings are left as they were.
 */
export function sweepScreens(store: Store, ingester: SweepHost, matcher: ScreenMatcher, options: SweepOptions): ScreenSweepStats {
  const stats: ScreenSweepStats = {
    agentPanes: 0,
    calls: 0,
    mapped: 0,
    panes: 0,
    removed: 0,
    servers: 0,
    tmux: 'ok',
    transitions: 0,
    written: 0,
  }
  forgetProcessTree()
  const tied: TiedProcess[] = []
  let procs: AgentProcess[] | null | undefined
  try {
    const existing = screenContributions(store)
    const {servers, why} = tmuxServers(options.env)
    // One scan of /proc for the agent processes (null: no /proc, every server is asked).
    procs = servers.length > 0 || options.scanAgents?.size ? listAgentProcesses(matcher.processes, allAgents(matcher)) : undefined
    const agents = servers.length > 0 ? (procs ? agentSockets(procs) : null) : null
    const {agentPanes, answered, ok, serverOf, swept} = listServers(servers, existing, options.env, matcher, stats, agents)
    stats.servers = ok
    if (servers.length === 0) stats.tmux = why ?? 'no_server'
    else if (ok === 0 && !stats.skipped) stats.tmux = stats.error ? 'error' : 'no_server'
    // Readings of servers this sweep did not reach stand while their agent process lives.
    answered.push(...existing.filter((e) => !swept.some((p) => e.path.startsWith(p)) && !readingProcessAlive(e.data, options.clock())))
    stats.agentPanes = agentPanes.length
    const mapped = agentPanes.length > 0 ? mapPanes(store, agentPanes, matcher.processes, options.bornAgents) : []
    stats.mapped = mapped.length
    const desired = readPanes(serverOf, mapped, matcher, options.env, stats, tied)
    write(store, ingester, answered, desired, options.clock(), stats, options.bornAgents ?? new Set())
  } catch (error) {
    stats.tmux = 'error'
    stats.error = (error as Error).message
  }

  // The process scan (process-scan.ts): the pane ties found above, then /proc.
  try {
    const scan = scanSessions(store, ingester, {
      agents: options.scanAgents ?? new Set(),
      names: matcher.processes,
      now: options.clock(),
      procs: procs ?? undefined,
      tied,
    })
    stats.transitions += scan.transitions
    stats.scanned = scan.scanned
    // Headless runs that have written nothing yet (unwritten-runs.ts), after the scan's claims.
    const runs = scanUnwrittenRuns(store, ingester, {
      names: matcher.processes,
      now: options.clock(),
      procs: scan.procs ?? procs ?? undefined,
    })
    stats.transitions += runs.transitions
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

/** Every agent the screen patterns name a process for. */
function allAgents(matcher: ScreenMatcher): Set<Agent> {
  return new Set(matcher.processes.values())
}

/** Is the agent process a stored reading was taken from still running (a reading marked gone: while it is kept)? */
function readingProcessAlive(data: string, now: number): boolean {
  const obs = screenObservationIn(data)
  if (obs !== null && typeof obs.gone === 'number') return now - obs.gone < GONE_KEEP_MS
  return obs !== null && isSameProcessAlive(obs.pid, obs.startedAt ?? null)
}

/** How long a reading of a process found gone is kept (the overlay ignores it once the session moved on). */
const GONE_KEEP_MS = 24 * 3600_000

/**
 * A reading whose pane is no longer shown: for an agent in `born` whose process is gone, the
 * reading marked gone (kept GONE_KEEP_MS; screen-overlay.ts askLeftBehind); otherwise null (removed).
 */
function goneReading(e: {agent: string; data: string}, born: ReadonlySet<Agent>, now: number): string | null {
  if (!born.has(e.agent)) return null
  const obs = screenObservationIn(e.data)
  if (obs === null) return null
  if (typeof obs.gone === 'number') return now - obs.gone < GONE_KEEP_MS ? e.data : null
  if (isSameProcessAlive(obs.pid, obs.startedAt ?? null)) return null
  const c = JSON.parse(e.data) as Contribution<ScreenExtra>
  return JSON.stringify({...c, extra: {screen: {...obs, gone: now}}})
}

/**
 * Store what changed: `existing` are the readings this sweep answers for (kept when still
 * desired, removed otherwise), `desired` what the panes show now.
 */
function write(
  store: Store,
  ingester: Recomposer,
  existing: readonly {path: string; agent: string; nativeId: string; data: string}[],
  desired: readonly Desired[],
  now: number,
  stats: ScreenSweepStats,
  born: ReadonlySet<Agent>,
): void {
  const old = new Map(existing.map((e) => [e.path, e]))
  const writes: {path: string; agent: Agent; nativeId: string; data: string}[] = []
  for (const d of desired) {
    const prev = old.get(d.path)
    const prevObs = prev && prev.agent === d.agent && prev.nativeId === d.nativeId ? screenObservationIn(prev.data) : null
    const same = prevObs !== null && prevObs.sig === d.obs.sig
    const since = same ? prevObs.since : now
    const confirmedAt = same ? (prevObs.confirmedAt ?? (now - since >= IDLE_CONFIRM_MS ? now : null)) : null
    const obs: ScreenObservation = {...d.obs, confirmedAt, since}
    const contribution: Contribution<ScreenExtra> = {extra: {screen: obs}, facts: {}, nativeId: d.nativeId, priority: SCREEN_PRIORITY}
    const data = JSON.stringify(contribution)
    if (prev && prev.data === data && prev.agent === d.agent && prev.nativeId === d.nativeId) continue
    writes.push({agent: d.agent, data, nativeId: d.nativeId, path: d.path})
  }

  const keep = new Set(desired.map((d) => d.path))
  for (const e of existing) {
    if (keep.has(e.path)) continue
    const gone = goneReading(e, born, now)
    if (gone === null) continue
    keep.add(e.path)
    if (gone !== e.data) writes.push({agent: e.agent, data: gone, nativeId: e.nativeId, path: e.path})
  }

  const removals = existing.filter(
    (e) => !keep.has(e.path) || writes.some((w) => w.path === e.path && (w.agent !== e.agent || w.nativeId !== e.nativeId)),
  )
  if (writes.length === 0 && removals.length === 0) return
  const r = store.tx(() => {
    const touched = new Map<string, {agent: Agent; nativeId: string}>()
    for (const e of removals) {
      for (const a of store.deleteFile(e.path)) touched.set(`${a.agent}\0${a.nativeId}`, {agent: a.agent, nativeId: a.nativeId})
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
// Wiring: the sweep an ingester runs (set by src/lib/ingest/ingest.ts, called by live.ts and syncBeforeRead)

const sweeps = new WeakMap<Ingester, () => ScreenSweepStats>()

export function attachScreenSweep(ingester: Ingester, sweep: () => ScreenSweepStats): void {
  sweeps.set(ingester, sweep)
}

export function screenSweepOf(ingester: Ingester): (() => ScreenSweepStats) | undefined {
  return sweeps.get(ingester)
}
