/**
 * Runs listed from their process before the agent wrote any file (the adapter's `unwrittenRun`):
 * pi writes its session file only once the first reply ends (docs/agents/pi.md), so a `pi -p`
 * that has not answered yet, or was killed before it did, has nothing on disk. Each such live
 * process (stdout not a terminal, no session's scan claim naming it) gets a session of its own,
 * stored as the pseudo file `run://<agent>/run-<pid>-<start ms>` with a claim on that process:
 * working while it runs (rule 8), dead once it is gone (rule 6). The run goes when a session the
 * agent wrote takes its process (the scan's claim) or, the process gone, when a session in the
 * same folder began after the run started; a run killed before writing stays, and reads dead.
 */
import type {Agent} from '../model/types.js'
import {scanContributions} from '../store/screen.js'
import type {Store} from '../store/store.js'
import {forgetRun, RUN_ID_PREFIX, RUN_PATH_PREFIX, runContributions, sessionsBegunSince} from '../store/unwritten-runs.js'
import type {AdapterEnv, AdapterRules, Contribution, ProcessClaim} from './adapter.js'
import {type AgentProcess, listAgentProcesses} from './agent-processes.js'
import {isSameProcessAlive, processEnv, writesToTerminal} from './process-table.js'
import type {Recomposer} from './process-scan.js'

/**
 * What the screen sweep and this scan need of the ingester (engine.ts Ingester): its adapters'
 * path rules, where they look, and the recompose of the sessions a write touched.
 */
export interface SweepHost extends Recomposer {
  readonly adapters: readonly AdapterRules[]
  readonly ctx: AdapterEnv
}

/** Clock slack between a process's start and the session it then writes. */
const START_SLACK_MS = 5000

export interface RunStats {
  written: number
  removed: number
  transitions: number
}

function claimOf(data: string): ProcessClaim | null {
  try {
    return (JSON.parse(data) as Contribution).processClaim ?? null
  } catch {
    return null
  }
}

/** Will the process write where this cast reads (the adapter's roots under the process's environment)? */
function writesHere(a: AdapterRules, ingester: SweepHost, pid: number): boolean {
  const env = processEnv(pid)
  if (env === null) return false
  return a.roots({env, home: env['HOME'] ?? ''}).join('\0') === a.roots(ingester.ctx).join('\0')
}

export function scanUnwrittenRuns(
  store: Store,
  ingester: SweepHost,
  opts: {names: ReadonlyMap<string, Agent>; now: number; procs?: readonly AgentProcess[]},
): RunStats {
  const stats: RunStats = {removed: 0, transitions: 0, written: 0}
  const byAgent = new Map<Agent, AdapterRules>()
  for (const a of ingester.adapters) if (a.unwrittenRun) byAgent.set(a.agent, a)
  if (byAgent.size === 0) return stats
  // The scan's list when it covered these agents (it lists every scanned agent's processes).
  const procs = opts.procs ?? listAgentProcesses(opts.names, new Set(byAgent.keys()))
  if (procs === null) return stats
  const existing = runContributions(store)
  if (procs.length === 0 && existing.length === 0) return stats
  // Processes a session the agent wrote already names (the scan found it by its pane or folder).
  const named = new Set<number>()
  for (const e of scanContributions(store)) {
    const c = claimOf(e.data)
    if (c && c.pid > 0 && !e.nativeId.startsWith(RUN_ID_PREFIX)) named.add(c.pid)
  }

  const writes = new Map<string, {agent: Agent; nativeId: string; data: string}>()
  for (const p of procs) {
    const a = byAgent.get(p.agent)
    if (!a?.unwrittenRun || p.cwd === null || p.startedAt === null || named.has(p.pid) || writesToTerminal(p.pid)) continue
    if (!writesHere(a, ingester, p.pid)) continue
    const facts = a.unwrittenRun({cwd: p.cwd, startedAt: p.startedAt})
    if (facts === null) continue
    const nativeId = `${RUN_ID_PREFIX}${p.pid}-${p.startedAt}`
    // Begun after the process started: the agent has written this run's session, which takes over.
    if (sessionsBegunSince(store, p.agent, p.cwd, p.startedAt - START_SLACK_MS).length > 0) continue
    const source = {kind: 'process', ref: `pid ${p.pid} (${p.agent} in ${p.cwd}, nothing written yet)`}
    const c: Contribution = {
      facts: {...facts, sources: {cwd: source, messages: source, settled: source}},
      nativeId,
      processClaim: {heartbeatAt: null, pid: p.pid, source, startedAt: p.startedAt, status: null},
    }
    writes.set(`${RUN_PATH_PREFIX}${p.agent}/${nativeId}`, {agent: p.agent, data: JSON.stringify(c), nativeId})
  }

  const removals = existing.filter((e) => {
    if (writes.has(e.path)) return false
    const c = claimOf(e.data)
    if (c === null) return true
    if (isSameProcessAlive(c.pid, c.startedAt)) return true // alive, and now named by a session (or on a terminal)
    const cwd = (JSON.parse(e.data) as Contribution).facts.cwd ?? null
    // Gone: superseded by the session it wrote, else it stays and reads dead.
    return cwd === null || sessionsBegunSince(store, e.agent, cwd, (c.startedAt ?? 0) - START_SLACK_MS).length > 0
  })
  const changed = [...writes].filter(([path, w]) => existing.find((e) => e.path === path)?.data !== w.data)
  if (changed.length === 0 && removals.length === 0) return stats
  const r = store.tx(() => {
    const touched = new Map<string, {agent: Agent; nativeId: string}>()
    for (const e of removals) {
      store.deleteFile(e.path)
      forgetRun(store, e.agent, e.nativeId)
    }

    for (const [path, w] of changed) {
      store.upsertContribution(path, w.agent, 'run', w.nativeId, w.data, opts.now)
      touched.set(`${w.agent}\0${w.nativeId}`, {agent: w.agent, nativeId: w.nativeId})
    }

    return ingester.recompose([...touched.values()])
  })
  stats.written = changed.length
  stats.removed = removals.length
  stats.transitions = r.transitions
  return stats
}
