/**
 * Tearing an agent down for `cast kill`, safely. What may be signalled is decided by the pure plan
 * in src/core/model/kill-plan.ts; this module reads what it decides from (/proc: alive, start
 * times, the process tree, cast's own ancestry) and sends the signals:
 *
 * - only a process whose identity is verified is signalled: it is alive and its start time (from
 *   /proc) equals the claim's; a claim without a start time is not verified, nor is a pid ≤ 1;
 * - never cast's own process or one of its ancestors (an agent that runs `cast kill` on itself
 *   must not take its shell, tmux or init down with it);
 * - the walk covers only descendants of that verified process (never its process group, whose
 *   other members need not be its children), each target remembered with its own start time so a
 *   pid reused during the grace is not signalled;
 * - TERM first, KILL what still runs after the grace; every pid signalled is reported.
 *
 * Needs /proc (Linux): elsewhere the identity cannot be verified and nothing is signalled.
 */
import fs from 'node:fs'

import {processStartTime} from '../../core/ingest/process-table.js'
import {claimRefusal, identityRefusal, type Refusal, signalTargets, treeOf} from '../../core/model/kill-plan.js'

export {START_MATCH_MS, type Refusal, treeOf} from '../../core/model/kill-plan.js'

export interface Termination {
  readonly pid: number
  /** Always null: process groups are not signalled (their members need not be descendants). */
  readonly pgid: null
  /** The strongest signal that was needed: TERM, KILL, or null when nothing was signalled. */
  readonly signal: 'SIGTERM' | 'SIGKILL' | null
  /** How many processes were signalled. */
  readonly processes: number
  /** Every pid signalled, the verified process first. */
  readonly signalled: readonly number[]
  /** Pids still running after KILL (permission denied, uninterruptible sleep). */
  readonly survivors: readonly number[]
  readonly error: string | null
}

interface ProcStat {
  readonly pid: number
  readonly state: string
  readonly ppid: number
}

function readStat(pid: number | 'self'): ProcStat | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return {pid: pid === 'self' ? Number(stat.split(' ', 1)[0]) : pid, ppid: Number(rest[1]), state: rest[0] ?? '?'}
  } catch {
    return null
  }
}

/** Parent → children over every process in /proc; null without /proc. */
export function childrenMap(): Map<number, number[]> | null {
  let entries: string[]
  try {
    entries = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))
  } catch {
    return null
  }

  const children = new Map<number, number[]>()
  for (const e of entries) {
    const s = readStat(Number(e))
    if (s) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s.pid])
  }

  return children
}

/** This process and each of its ancestors up to init. */
export function ownAncestry(): Set<number> {
  const out = new Set<number>([process.pid])
  let cur: number | null = process.ppid
  for (let depth = 0; cur !== null && cur > 0 && depth < 128 && !out.has(cur); depth++) {
    out.add(cur)
    const s = readStat(cur)
    cur = s && Number.isInteger(s.ppid) && s.ppid > 0 ? s.ppid : null
  }

  return out
}

/** Alive and not a zombie waiting to be reaped. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }

  const s = readStat(pid)
  return s === null ? true : s.state !== 'Z' && s.state !== 'X'
}

/**
 * Is this the claimed process? Alive, pid > 1, and its start time matches `startedAt` (sameStart
 * in src/core/model/kill-plan.ts). Returns why not, or null when verified.
 */
export function verifyIdentity(pid: number, startedAt: number | null | undefined): Refusal {
  // The checks that need nothing looked at come first: no process is looked at for pid ≤ 1.
  const refusal = claimRefusal(pid, startedAt)
  if (refusal !== null || typeof startedAt !== 'number') return refusal
  const running = isRunning(pid)
  return identityRefusal(pid, startedAt, {running, startedAt: running ? processStartTime(pid) : null})
}

export interface Plan {
  /** The pids that would be signalled, the verified process first. */
  readonly targets: readonly number[]
  /** Each target's start time when planned, so a pid reused during the grace is left alone. */
  readonly starts: ReadonlyMap<number, number | null>
  /** Descendants left out because they are cast itself or its ancestors. */
  readonly spared: readonly number[]
}

/** What `terminate` would signal: the verified process and its descendants, never cast's own line. */
export function planTermination(pid: number, startedAt: number | null | undefined): {plan: Plan | null; refusal: Refusal} {
  const refusal = verifyIdentity(pid, startedAt)
  if (refusal !== null) return {plan: null, refusal}
  const own = ownAncestry()
  const planned = signalTargets(pid, own, own.has(pid) ? null : childrenMap())
  if (planned.targets === null) return {plan: null, refusal: planned.refusal}
  const {spared, targets} = planned.targets
  return {plan: {spared, starts: new Map(targets.map((p) => [p, processStartTime(p)])), targets}, refusal: null}
}

function signal(pid: number, sig: NodeJS.Signals): string | null {
  try {
    process.kill(pid, sig)
    return null
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return code === 'ESRCH' ? null : `${sig} ${pid}: ${code ?? (error as Error).message}`
  }
}

/** Still the process that was planned (same start time)? */
function same(pid: number, starts: Map<number, number | null>): boolean {
  if (!isRunning(pid)) return false
  const then = starts.get(pid)
  const now = processStartTime(pid)
  return then === undefined || then === null || now === null || then === now
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * TERM the verified process and its descendants, wait up to `graceMs` for them to exit (children
 * it starts meanwhile are added), then KILL what is left. Real time, not CAST_NOW. The caller
 * has planned it (planTermination): `plan` is what was verified.
 */
export async function terminate(pid: number, plan: Plan, graceMs: number): Promise<Termination> {
  const starts = new Map(plan.starts)
  const own = ownAncestry()
  const signalled: number[] = []
  const errors: string[] = []
  const send = (sig: NodeJS.Signals, list: readonly number[]): void => {
    for (const p of list) {
      if (p <= 1 || own.has(p) || !same(p, starts)) continue
      const e = signal(p, sig)
      if (e) errors.push(e)
      if (!signalled.includes(p)) signalled.push(p)
    }
  }

  /** Descendants of the verified process that appeared since the plan (it forked during the grace). */
  const newcomers = (): number[] => {
    if (!same(pid, starts)) return []
    const children = childrenMap()
    if (children === null) return []
    const fresh = treeOf(pid, children).filter((p) => !starts.has(p) && p > 1 && !own.has(p))
    for (const p of fresh) starts.set(p, processStartTime(p))
    return fresh
  }

  let targets = [...plan.targets]
  send('SIGTERM', targets)
  const deadline = Date.now() + graceMs
  let running = targets.filter((p) => same(p, starts))
  while (running.length > 0 && Date.now() < deadline) {
    await sleep(Math.min(50, Math.max(1, deadline - Date.now())))
    const fresh = newcomers()
    if (fresh.length > 0) {
      targets = [...targets, ...fresh]
      send('SIGTERM', fresh)
    }

    running = targets.filter((p) => same(p, starts))
  }

  const result = (sig: Termination['signal'], survivors: number[]): Termination => ({
    error: errors[0] ?? null,
    pgid: null,
    pid,
    processes: signalled.length,
    signal: signalled.length === 0 ? null : sig,
    signalled,
    survivors,
  })
  if (running.length === 0) {
    await reaped(pid)
    return result('SIGTERM', [])
  }

  running = [...running, ...newcomers()]
  send('SIGKILL', running)
  for (let i = 0; i < 40 && running.length > 0; i++) {
    await sleep(25)
    running = running.filter((p) => same(p, starts))
  }

  if (running.length === 0) await reaped(pid)
  return result('SIGKILL', running)
}

/**
 * Wait (briefly) until the agent's pid is reaped, not only dead: a zombie still answers kill(0),
 * and the store's liveness check would read it as running until its parent collects it.
 */
async function reaped(pid: number, maxMs = 2000): Promise<void> {
  const until = Date.now() + maxMs
  while (Date.now() < until) {
    try {
      process.kill(pid, 0)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return
    }

    await sleep(20)
  }
}
