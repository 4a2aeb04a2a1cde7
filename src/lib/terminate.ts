/**
 * Tearing an agent down for `cast kill`: TERM to its process group (and to any descendant that
 * left the group), KILL to whatever is still running after the grace. Reads /proc where there is
 * one; elsewhere it signals the group led by the pid, else the pid.
 */
import fs from 'node:fs'

export interface Termination {
  readonly pid: number
  /** The process group signalled, or null when only single processes were. */
  readonly pgid: number | null
  /** The strongest signal that was needed: TERM, KILL, or null when nothing was running. */
  readonly signal: 'SIGTERM' | 'SIGKILL' | null
  /** Processes signalled (the group's members and the pid's descendants). */
  readonly processes: number
  /** Pids still running after KILL (permission denied, uninterruptible sleep). */
  readonly survivors: readonly number[]
  readonly error: string | null
}

interface ProcStat {
  readonly pid: number
  readonly state: string
  readonly ppid: number
  readonly pgrp: number
}

function readStat(pid: number | 'self'): ProcStat | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return {pgrp: Number(rest[2]), pid: pid === 'self' ? Number(stat.split(' ', 1)[0]) : pid, ppid: Number(rest[1]), state: rest[0] ?? '?'}
  } catch {
    return null
  }
}

function allStats(): ProcStat[] | null {
  let entries: string[]
  try {
    entries = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))
  } catch {
    return null
  }

  const out: ProcStat[] = []
  for (const e of entries) {
    const s = readStat(Number(e))
    if (s) out.push(s)
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

/** The process group of a pid (/proc field 5); null when unknown. */
export function processGroupOf(pid: number): number | null {
  const s = readStat(pid)
  return s && Number.isInteger(s.pgrp) && s.pgrp > 0 ? s.pgrp : null
}

/** Every process to stop: the group's members (when the group is signalled) and the pid's descendants. */
function targets(pid: number, pgid: number | null): number[] {
  const stats = allStats()
  if (stats === null) return [pid]
  const set = new Set<number>([pid])
  if (pgid !== null) for (const s of stats) if (s.pgrp === pgid) set.add(s.pid)
  const children = new Map<number, number[]>()
  for (const s of stats) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s.pid])
  const queue = [pid]
  const seen = new Set<number>([pid])
  while (queue.length > 0) {
    for (const c of children.get(queue.shift()!) ?? []) {
      if (seen.has(c)) continue
      seen.add(c)
      set.add(c)
      queue.push(c)
    }
  }

  return [...set].filter((p) => p !== process.pid)
}

function signal(pid: number, sig: NodeJS.Signals): string | null {
  try {
    process.kill(pid, sig)
    return null
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return code === 'ESRCH' ? null : `${sig} ${pid < 0 ? `group ${-pid}` : pid}: ${code ?? (error as Error).message}`
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * TERM the agent's process group (never our own: then only the pid and its descendants), wait up
 * to `graceMs` for every target to exit, then KILL what is left. Real time, not CAST_NOW.
 */
export async function terminate(pid: number, graceMs: number): Promise<Termination> {
  if (!isRunning(pid)) return {error: null, pgid: null, pid, processes: 0, signal: null, survivors: []}
  const own = readStat('self')?.pgrp ?? null
  let pgid = processGroupOf(pid)
  if (pgid === null && !fs.existsSync('/proc')) pgid = pid
  if (pgid !== null && (pgid <= 1 || pgid === own)) pgid = null
  const pids = targets(pid, pgid)
  const errors: string[] = []
  const send = (sig: NodeJS.Signals, list: readonly number[]): void => {
    if (pgid !== null) {
      const e = signal(-pgid, sig)
      if (e) errors.push(e)
    }

    for (const p of list) {
      const e = signal(p, sig)
      if (e) errors.push(e)
    }
  }

  send('SIGTERM', pids)
  const deadline = Date.now() + graceMs
  let running = pids.filter(isRunning)
  while (running.length > 0 && Date.now() < deadline) {
    await sleep(Math.min(50, Math.max(1, deadline - Date.now())))
    running = running.filter(isRunning)
  }

  if (running.length === 0) {
    await reaped(pid)
    return {error: errors[0] ?? null, pgid, pid, processes: pids.length, signal: 'SIGTERM', survivors: []}
  }

  send('SIGKILL', running)
  for (let i = 0; i < 40 && running.length > 0; i++) {
    await sleep(25)
    running = running.filter(isRunning)
  }

  if (running.length === 0) await reaped(pid)
  return {error: errors[0] ?? null, pgid, pid, processes: pids.length, signal: 'SIGKILL', survivors: running}
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
