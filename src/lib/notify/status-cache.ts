/**
 * The status line kept on disk, so a status bar polling every few seconds costs a Node start and
 * one small file read, not a store query (bench/status.js).
 *
 * Two files in CAST_HOME:
 * - `status.json`: the counts, the default line, who they were counted for, and when they stop
 *   holding: the store's stamp (size and mtime of cast.db and cast.db-wal, so any write by any
 *   cast process shows) and `valid_until`, the first time a count can change with time alone
 *   (a working session going quiet, a session leaving the recency window), capped at
 *   MAX_VALID_MS. `cast status` answers from it when both still hold, and writes it when it
 *   counted.
 * - `status.line`: the default line alone, kept current by `cast daemon` (written on every change
 *   and at every valid_until), for a status line that reads it without starting Node
 *   (`cast status --path` prints where; README "Status bar").
 *
 * Only node:fs, node:path and the pure line renderer here: bin/run.js loads this module alone on
 * the fast path.
 */
import fs from 'node:fs'
import path from 'node:path'

import {statusLine} from '../../core/model/notify.js'

export interface CachedCounts {
  need: number
  questions: number
  needs_input: number
  quiet: number
  working: number
  done: number
}

export interface StatusCacheEntry {
  readonly v: 1
  /** storeStamp() read before the store was: a write after it shows as a different stamp. */
  readonly stamp: string
  /** The identity the counts are for, and the inputs that identity was found from. */
  readonly me_key: string
  /** statOf() the config file, and inbox.recency read from it (null: the default). */
  readonly config_stamp: string
  readonly recency_ms: number | null
  readonly computed_at: number
  readonly valid_until: number
  readonly counts: CachedCounts
  readonly line: string
  /**
   * Set when cast daemon wrote the entry: it keeps it current itself (within a few seconds of a
   * change, src/lib/notify/status-keeper.ts), so while that process lives the store's stamp is not
   * compared (its own lease heartbeat writes the store every 2 s).
   */
  readonly keeper?: ProcessId
}

/** A process, by pid and start time (field 22 of /proc/PID/stat; null where /proc is missing). */
export interface ProcessId {
  readonly pid: number
  readonly start: string | null
}

/** This process's ProcessId. */
export function selfProcess(): ProcessId {
  return {pid: process.pid, start: startOf(process.pid)}
}

function startOf(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null
  } catch {
    return null
  }
}

/** Is that process still the one that wrote (same pid, same start time)? */
function alive(p: ProcessId): boolean {
  try {
    process.kill(p.pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }

  return p.start === null || startOf(p.pid) === p.start
}

/** The line for these counts: the default, or `format` with its fields filled in. */
export function renderStatus(c: CachedCounts, format?: string): string {
  return statusLine({done: c.done, needs_input: c.need, questions: c.questions, quiet: c.quiet, working: c.working}, format)
}

/** A read-only CAST_HOME: the stored counts, marked (nothing syncs them). */
export function staleMark(line: string, stale: boolean): string {
  return stale ? `${line} (stale)` : line
}

/**
 * `cast status` before the first sync (no store at CAST_HOME): a marker, whatever --format says,
 * never "nothing needs you"; `synced: false` in JSON. Any `cast sessions` or `cast daemon` syncs.
 */
export const UNSYNCED = {
  done: 0,
  line: '? not yet synced',
  need: 0,
  needs_input: 0,
  questions: 0,
  quiet: 0,
  synced: false,
  working: 0,
} as const

/** A cached line older than this is counted again even when nothing seemed to change. */
export const MAX_VALID_MS = 60_000

export const STATUS_JSON = 'status.json'
export const STATUS_LINE = 'status.line'

/** Size and mtime of the database and its WAL: every committed write changes one of them. */
export function storeStamp(home: string): string | null {
  const db = statOf(path.join(home, 'cast.db'))
  if (db === null) return null
  // An empty WAL is no WAL: a reader creates one, empty, on its first read.
  const wal = statOf(path.join(home, 'cast.db-wal'))
  return `${db}|${wal === null || wal.startsWith('0:') ? '-' : wal}`
}

function statOf(file: string): string | null {
  try {
    const s = fs.statSync(file, {bigint: true})
    return `${s.size}:${s.mtimeNs}`
  } catch {
    return null
  }
}

/**
 * What whoAmI() reads, as one key: with CAST_USER the identity itself; else the variables `git
 * config user.email` depends on. Not the working folder: a status bar and the daemon run in
 * different folders, and a repository's own user.email is not what a status line counts for
 * (set CAST_USER where it differs).
 */
export function meKey(env: Readonly<Record<string, string | undefined>>): string {
  const user = env.CAST_USER?.trim()
  if (user) return `user:${user}`
  return ['git', env.USER, env.HOME, env.XDG_CONFIG_HOME, env.GIT_CONFIG_GLOBAL, env.GIT_CONFIG_SYSTEM].join('\0')
}

/** status.json as it was written, or null when it is missing or not one of ours. */
export function loadStatusCache(home: string): StatusCacheEntry | null {
  try {
    const entry = JSON.parse(fs.readFileSync(path.join(home, STATUS_JSON), 'utf8')) as StatusCacheEntry
    if (entry?.v !== 1 || typeof entry.line !== 'string' || typeof entry.counts !== 'object' || entry.counts === null) return null
    return entry
  } catch {
    return null
  }
}

/** Does the entry still hold for this identity, config and time, and the store as it is now? */
export function cacheHolds(entry: StatusCacheEntry, home: string, key: string, configStamp: string, now: number): boolean {
  if (entry.me_key !== key || entry.config_stamp !== configStamp) return false
  if (!(now >= entry.computed_at && now < entry.valid_until)) return false
  if (entry.keeper && alive(entry.keeper)) return true
  return entry.stamp === storeStamp(home)
}

/** The config file's stamp ("-" when there is none). */
export function configStamp(file: string): string {
  return statOf(file) ?? '-'
}

/**
 * Writes status.json (and status.line when `line` is asked for) atomically: a reader sees the
 * old file or the new one, never half of one. A home that cannot be written (read-only) is left
 * as it is: the cache is an optimisation.
 */
export function writeStatusCache(home: string, entry: StatusCacheEntry, options: {line?: boolean} = {}): void {
  try {
    atomicWrite(path.join(home, STATUS_JSON), JSON.stringify(entry) + '\n')
    if (options.line) atomicWrite(path.join(home, STATUS_LINE), entry.line + '\n')
  } catch {
    // read-only or vanished home: status still answers, only slower
  }
}

/** What status.line says once the daemon that kept it has stopped. */
export const STOPPED_LINE = '? cast daemon stopped'

/** Replaces status.line alone (atomically); a home that cannot be written is left as it is. */
export function writeLine(home: string, line: string): void {
  try {
    atomicWrite(path.join(home, STATUS_LINE), line + '\n')
  } catch {
    // read-only or vanished home
  }
}

function atomicWrite(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`
  fs.writeFileSync(tmp, text, {mode: 0o600})
  fs.renameSync(tmp, file)
}

/** The time the entry stops holding: the first count change by time alone, capped. */
export function validUntil(now: number, nextChangeAt: number | null): number {
  const cap = now + MAX_VALID_MS
  return nextChangeAt === null ? cap : Math.min(cap, Math.max(nextChangeAt, now))
}
