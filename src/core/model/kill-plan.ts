/**
 * The decision half of `cast kill` (src/commands/kill.ts): which claimed processes may be
 * signalled, which may not and why. Pure: what cast saw of the processes (alive, start time, the
 * process tree, cast's own ancestry) is read from /proc by src/lib/agents/terminate.ts and passed in;
 * the signalling itself is terminate.ts's.
 *
 * - Only a process whose identity is verified is signalled: it is alive and its start time matches
 *   the claim's (sameStart); a claim without a start time is not verified, nor is a pid ≤ 1.
 * - Never cast's own process or one of its ancestors; the walk covers only descendants of the
 *   verified process (never its process group).
 * - A session whose process runs on another machine is only named; a live process no verified
 *   claim backs is refused with why.
 */

/** Start times within this much of the claim are the same process (the registry's clock vs /proc's ticks). */
export const START_MATCH_MS = 10_000

/**
 * An agent writes its own start time once it has loaded (a session registry of pid files),
 * which on a loaded machine is well after the kernel started it: a claim up to this much later
 * than the real start is the same process. Sound because the claim was written while that pid ran:
 * any other holder of the pid started after the claim, which START_MATCH_MS still refuses.
 */
export const STARTUP_ALLOWANCE_MS = 120_000

/** Is a process started at `actual` the one a claim of `claimed` names? */
export function sameStart(actual: number, claimed: number): boolean {
  return actual - claimed <= START_MATCH_MS && claimed - actual <= STARTUP_ALLOWANCE_MS
}

/** Why a process may not be signalled, or null when it may. */
export type Refusal = string | null

/** What cast saw of a claimed process in /proc. */
export interface ProcessSighting {
  /** Alive and not a zombie waiting to be reaped. */
  readonly running: boolean
  /** Its start time, null when it cannot be read. */
  readonly startedAt: number | null
}

/**
 * The checks a claim fails before anything is looked at: no pid, init, no start time. Null: the
 * process must be looked at (identityRefusal).
 */
export function claimRefusal(pid: number, startedAt: number | null | undefined): Refusal {
  // No pid (0) or init (1): cast never sends a signal it cannot tie to the session's own process.
  if (!Number.isInteger(pid) || pid <= 0) return 'cast knows no process id for it, so there is no process it may signal'
  if (pid === 1) return 'its recorded process is pid 1 (init), which cast never signals'
  if (typeof startedAt !== 'number' || !Number.isFinite(startedAt))
    return `the claim on pid ${pid} records no start time, so its identity cannot be verified`
  return null
}

/** Is the process seen the claimed one? Running, and started when the claim says (claimRefusal passed). */
export function identityRefusal(pid: number, claimedStart: number, seen: ProcessSighting): Refusal {
  if (!seen.running) return `pid ${pid} is not running`
  if (seen.startedAt === null) return `the start time of pid ${pid} cannot be read`
  if (!sameStart(seen.startedAt, claimedStart)) {
    return `pid ${pid} started at ${new Date(seen.startedAt).toISOString()}, not at ${new Date(claimedStart).toISOString()} as claimed: another process has that pid now`
  }

  return null
}

/** `pid` and every descendant of it (breadth first, bounded). */
export function treeOf(pid: number, children: ReadonlyMap<number, readonly number[]>, max = 4096): number[] {
  const out = [pid]
  const seen = new Set(out)
  for (let i = 0; i < out.length && out.length < max; i++) {
    for (const c of children.get(out[i]!) ?? []) {
      if (seen.has(c)) continue
      seen.add(c)
      out.push(c)
    }
  }

  return out
}

/** The pids a verified process's termination signals, and those left out as cast's own line. */
export interface SignalTargets {
  /** The verified process first, then its descendants; never pid ≤ 1 or cast's own line. */
  readonly targets: readonly number[]
  /** Descendants left out because they are cast itself or its ancestors. */
  readonly spared: readonly number[]
}

/**
 * What terminating a verified process signals: it and its descendants, never cast itself or an
 * ancestor of it. `own`: cast's process and its ancestors; `children`: parent → children over the
 * process table, null when it cannot be read.
 */
export function signalTargets(
  pid: number,
  own: ReadonlySet<number>,
  children: ReadonlyMap<number, readonly number[]> | null,
): {targets: SignalTargets | null; refusal: Refusal} {
  if (own.has(pid)) return {refusal: `pid ${pid} is cast itself or one of its ancestors`, targets: null}
  if (children === null) return {refusal: 'no /proc: the process tree cannot be read', targets: null}
  const tree = treeOf(pid, children)
  return {refusal: null, targets: {spared: tree.filter((p) => own.has(p)), targets: tree.filter((p) => p > 1 && !own.has(p))}}
}

/** One session as the kill plan reads it. */
export interface KillSubject {
  /** The machine that saw its process (null: this one). */
  readonly device: string | null
  /** Its process as the store reads it, or null. */
  readonly process: {readonly pid: number; readonly alive: boolean} | null
}

/**
 * A session seen on another machine: nothing is planned here (a pid means something only on the
 * machine that saw it); `device` names that machine when its process is live there, else null.
 * Null when this machine decides.
 */
export function killedElsewhere(s: KillSubject, thisDevice: string): {readonly device: string | null} | null {
  if (s.device === null || s.device === thisDevice) return null
  return {device: s.process?.alive ? s.device : null}
}

/** A verified claim (checkClaims) with what planning its termination gave (signalTargets). */
export interface VerifiedClaim {
  readonly pid: number
  /** The pids its termination signals, null when it was refused. */
  readonly targets: readonly number[] | null
  readonly refusal: Refusal
}

/** A session's kill plan on this machine. */
export interface SessionKillPlan {
  /** The verified claims to signal, by their index in the claims given. */
  readonly planned: readonly number[]
  /** The claims not signalled, with why (those refused before planning first). */
  readonly refused: readonly {readonly pid: number; readonly why: string}[]
}

/**
 * Which of a session's claims may be signalled, in claim order. A claim whose pid a planned
 * claim's termination already covers is not planned twice; a claim whose termination was refused
 * is refused with why; a live process no planned claim covers and no refusal names is refused
 * too (its identity cannot be verified).
 */
export function planSessionKill(
  s: KillSubject,
  verified: readonly VerifiedClaim[],
  refusedBefore: readonly {readonly pid: number; readonly why: string}[],
): SessionKillPlan {
  const refused = [...refusedBefore]
  const planned: number[] = []
  const covers = (pid: number): boolean => planned.some((i) => verified[i]!.targets!.includes(pid))
  for (const [i, claim] of verified.entries()) {
    if (covers(claim.pid)) continue
    if (claim.targets === null) refused.push({pid: claim.pid, why: claim.refusal ?? `pid ${claim.pid} cannot be verified`})
    else planned.push(i)
  }

  // A process the store reads as live that no verified claim backs is named too.
  const proc = s.process
  if (proc?.alive && !covers(proc.pid) && !refused.some((r) => r.pid === proc.pid)) {
    refused.push({pid: proc.pid, why: `no claim with a start time names pid ${proc.pid}, so its identity cannot be verified`})
  }

  return {planned, refused}
}
