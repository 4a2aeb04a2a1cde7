/**
 * Queries for the terminal fallback (src/core/ingest/screen.ts): the screen contributions it
 * stored (one pseudo file `screen://tmux<socket>/<pane>` per agent pane), and the sessions a pane could
 * belong to by working directory.
 */
import {text} from './rows.js'
import type {Store} from './store.js'

export interface ScreenContributionRow {
  readonly path: string
  readonly agent: string
  readonly nativeId: string
  readonly data: string
}

type Row = Record<string, unknown>

/** The screen contributions in the store (a range over the primary key, no scan). */
export function screenContributions(store: Store): ScreenContributionRow[] {
  // '0' follows '/' in byte order: this is every path that starts with 'screen://'.
  return (
    store.q(`SELECT path, agent, native_id, data FROM contributions WHERE path >= 'screen://' AND path < 'screen:/0'`).all() as Row[]
  ).map((r) => ({agent: String(r.agent), data: String(r.data), nativeId: String(r.native_id), path: String(r.path)}))
}

export interface CwdCandidate {
  readonly nativeId: string
  readonly createdAt: number | null
  readonly lastActivityAt: number | null
  readonly parentId: string | null
  /** The process the session's facts name, if any. */
  readonly pid: number | null
  readonly alive: boolean
}

/** The sessions of one agent whose working directory is `cwd`. */
export function sessionsInCwd(store: Store, agent: string, cwd: string): CwdCandidate[] {
  return (
    store
      .q(
        `SELECT native_id, json_extract(facts, '$.createdAt') AS created_at, last_activity_at, parent_id, json_extract(facts, '$.process.pid') AS pid,
           json_extract(facts, '$.process.alive') AS alive
         FROM sessions WHERE agent = ? AND cwd = ?`,
      )
      .all(agent, cwd) as Row[]
  ).map((r) => ({
    alive: r.alive === 1 || r.alive === true,
    createdAt: r.created_at === null || r.created_at === undefined ? null : Number(r.created_at),
    lastActivityAt: r.last_activity_at === null ? null : Number(r.last_activity_at),
    nativeId: String(r.native_id),
    parentId: r.parent_id === null ? null : text(r.parent_id),
    pid: r.pid === null || r.pid === undefined ? null : Number(r.pid),
  }))
}

/**
 * Changes when anything in the database changed since the last call on this connection: another
 * connection's commit (`PRAGMA data_version`) or one of our own writes (`total_changes()`). Lets
 * the sweep reuse what it worked out from the store while nothing changed.
 */
export function storeChangeKey(store: Store): string {
  const dv = (store.q('PRAGMA data_version').get() as Row).data_version
  const tc = (store.q('SELECT total_changes() AS n').get() as Row).n
  // The live ingester's lease heartbeat (every 2 s) changes nothing a tie depends on.
  return `${text(dv)}:${Number(tc) - store.heartbeats}`
}

export interface ClaimRow {
  readonly path: string
  readonly agent: string
  readonly nativeId: string
  readonly data: string
  /** The session exists (the contribution describes a known session). */
  readonly known: boolean
  readonly parentId: string | null
}

function claimRows(store: Store, keys: readonly {path: string; nativeId: string}[]): ClaimRow[] {
  const out: ClaimRow[] = []
  for (const k of keys) {
    const r = store
      .q(
        `SELECT c.path, c.agent, c.native_id, c.data, s.id AS sid, s.parent_id FROM contributions c
         LEFT JOIN sessions s ON s.agent = c.agent AND s.native_id = c.native_id WHERE c.path = ? AND c.native_id = ?`,
      )
      .get(k.path, k.nativeId) as Row | undefined
    if (!r) continue
    out.push({
      agent: String(r.agent),
      data: String(r.data),
      known: r.sid !== null && r.sid !== undefined,
      nativeId: String(r.native_id),
      parentId: r.parent_id === null || r.parent_id === undefined ? null : text(r.parent_id),
      path: String(r.path),
    })
  }

  return out
}

/**
 * Contributions of files whose name carries `pid` as a whole number (`sessions/<pid>.json`,
 * `inuse.<pid>.lock`): found on the primary-key index alone, then read one by one.
 */
export function contributionsNamingPid(store: Store, pid: number): ClaimRow[] {
  const digits = String(pid)
  const whole = new RegExp(`(^|[^0-9])${digits}([^0-9]|$)`)
  const keys = (store.q('SELECT path, native_id FROM contributions WHERE path LIKE ?').all(`%${digits}%`) as Row[])
    .map((r) => ({nativeId: String(r.native_id), path: String(r.path)}))
    .filter((k) => whole.test(k.path.slice(k.path.lastIndexOf('/') + 1)))
  return claimRows(store, keys)
}

/** What the file at `path` contributes (a transcript an agent holds open). */
export function contributionsAtPath(store: Store, path: string): ClaimRow[] {
  const keys = (store.q('SELECT path, native_id FROM contributions WHERE path = ?').all(path) as Row[]).map((r) => ({
    nativeId: String(r.native_id),
    path: String(r.path),
  }))
  return claimRows(store, keys)
}

/** Every pseudo path the process scan writes starts with this (src/core/ingest/process-scan.ts). */
export const SCAN_PATH_PREFIX = 'scan://'

/** The process-scan contributions in the store (a range over the primary key). */
export function scanContributions(store: Store): ScreenContributionRow[] {
  return (
    store.q(`SELECT path, agent, native_id, data FROM contributions WHERE path >= 'scan://' AND path < 'scan:/0'`).all() as Row[]
  ).map((r) => ({agent: String(r.agent), data: String(r.data), nativeId: String(r.native_id), path: String(r.path)}))
}

export interface ScanCandidateRow {
  readonly agent: string
  readonly nativeId: string
  readonly cwd: string | null
  readonly lastActivityAt: number | null
  readonly parentId: string | null
  readonly settled: boolean
  readonly messages: number
}

/** Sessions of these agents active since `since` (epoch ms), with what the scan needs of their facts. */
export function sessionsActiveSince(store: Store, agents: readonly string[], since: number): ScanCandidateRow[] {
  if (agents.length === 0) return []
  return (
    store
      .q(
        `SELECT agent, native_id, cwd, last_activity_at, parent_id, json_extract(facts, '$.settled') AS settled,
           json_extract(facts, '$.messages') AS messages
         FROM sessions WHERE agent IN (${agents.map(() => '?').join(', ')}) AND last_activity_at >= ?`,
      )
      .all(...agents, since) as Row[]
  ).map((r) => ({
    agent: String(r.agent),
    cwd: r.cwd === null || r.cwd === undefined ? null : text(r.cwd),
    lastActivityAt: r.last_activity_at === null ? null : Number(r.last_activity_at),
    messages: Number(r.messages ?? 0),
    nativeId: String(r.native_id),
    parentId: r.parent_id === null || r.parent_id === undefined ? null : text(r.parent_id),
    settled: r.settled === 1 || r.settled === true,
  }))
}
