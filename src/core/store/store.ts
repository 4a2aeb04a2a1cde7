/**
 * The cast store: the only module that speaks SQL (docs/contract.md §4).
 *
 * Every write runs in an IMMEDIATE transaction, so concurrent writers queue on busy_timeout
 * instead of failing, and every change of state, reason or bucket is logged in the transitions
 * table inside the same transaction as the write that caused it.
 *
 * The class is the thin surface callers use; each record family's SQL lives in its own module
 * (contributions, sessions, reconcile, records, leases; the other src/core/store/*.ts take the
 * store as their first argument).
 */
import fs from 'node:fs'
import path from 'node:path'

import type Database from 'better-sqlite3'

import type {Agent, SessionFacts} from '../model/types.js'
import {
  addParseErrors,
  type ClaimOnPid,
  claimsOnPids,
  contributionsFor,
  countFiles,
  deleteFile,
  type FileRow,
  filesFor,
  getContribution,
  loadFiles,
  replaceContributions,
  saveFile,
  sessionsWithProcessClaims,
  type StoredContribution,
  totalParseErrors,
  upsertContribution,
} from './contributions.js'
import {folderWritable, openDatabase} from './db.js'
import {acquireLease, getLease, heartbeatLease, holdsLease, type Lease, releaseLease} from './leases.js'
import {getRecordsRow, patchRecords, type RecordsPatch} from './records.js'
import {dueForCheck, lastSeq, nextCheckAt, reconcile, type ReconcileResult, type Transition, transitionsSince} from './reconcile.js'
import {
  countSessions,
  loadFactsByNative,
  loadSessions,
  sessionIdByNative,
  sessionIdCandidates,
  sessionIds,
  type SessionRow,
  upsertFacts,
} from './sessions.js'
import {type Row, str} from './rows.js'

export type {FileRow, StoredContribution} from './contributions.js'
export type {Lease} from './leases.js'
export type {RecordsPatch} from './records.js'
export type {ReconcileResult, Transition} from './reconcile.js'
export type {DecisionCard, SessionRow} from './sessions.js'
export {decisionFromRow} from './sessions.js'

export class Store {
  readonly db: Database.Database
  readonly home: string
  private readonly stmts = new Map<string, Database.Statement>()

  /** Opened read-only in a folder no one can write to: what it holds is all there is (nothing syncs it). */
  readonly stale: boolean

  constructor(home: string, options: {readonly?: boolean} = {}) {
    this.home = home
    this.db = openDatabase(home, options)
    this.stale = options.readonly === true && !folderWritable(home)
  }

  /**
   * The store for a command that only reads (sessions, status, explain): writable when it can be,
   * else, in a read-only CAST_HOME that holds a store, that store read as it is (`stale`).
   */
  static forReading(home: string): Store {
    // SQLite would open a store in a read-only folder read-only by itself, and fail at the first write.
    if (!folderWritable(home) && fs.existsSync(path.join(home, 'cast.db'))) return new Store(home, {readonly: true})
    return new Store(home)
  }

  close(): void {
    if (this.db.open) this.db.close()
  }

  /** A prepared statement, created once per store. Store modules (src/core/store/*.ts) use it; nothing outside src/core/store may. */
  q(sql: string): Database.Statement {
    let s = this.stmts.get(sql)
    if (!s) {
      s = this.db.prepare(sql)
      this.stmts.set(sql, s)
    }

    return s
  }

  /** Run `fn` in one IMMEDIATE write transaction. */
  tx<T>(fn: () => T): T {
    if (this.db.inTransaction) return fn()
    return this.db.transaction(fn).immediate()
  }

  // ---------------------------------------------------------------- contributions (contributions.ts)

  loadFiles(): Map<string, FileRow> {
    return loadFiles(this)
  }

  saveFile(f: FileRow): void {
    return saveFile(this, f)
  }

  /** Forget a file that disappeared; returns the sessions it contributed to. */
  deleteFile(path: string): {agent: string; nativeId: string}[] {
    return deleteFile(this, path)
  }

  /** Replace what one file says; returns every session whose contributions changed. */
  replaceContributions(path: string, agent: string, contribs: readonly {nativeId: string; data: string}[]): string[] {
    return replaceContributions(this, path, agent, contribs)
  }

  /** Set what one source says about one session (hook state), creating the source row. */
  upsertContribution(path: string, agent: string, kind: string, nativeId: string, data: string, now: number): void {
    return upsertContribution(this, path, agent, kind, nativeId, data, now)
  }

  getContribution(path: string, nativeId: string): string | null {
    return getContribution(this, path, nativeId)
  }

  addParseErrors(path: string, n: number): void {
    return addParseErrors(this, path, n)
  }

  contributionsFor(agent: string, nativeId: string): StoredContribution[] {
    return contributionsFor(this, agent, nativeId)
  }

  /** Sessions whose contributions include a process claim (for the cheap liveness re-check). */
  sessionsWithProcessClaims(): {agent: string; nativeId: string; data: string; path: string}[] {
    return sessionsWithProcessClaims(this)
  }

  /** The process claims on any of `pids`, with their sessions' cast ids (a keyed process tree walk). */
  claimsOnPids(pids: readonly number[]): ClaimOnPid[] {
    return claimsOnPids(this, pids)
  }

  /** The files that describe one session, with their read position and parse errors. */
  filesFor(agent: string, nativeId: string): FileRow[] {
    return filesFor(this, agent, nativeId)
  }

  totalParseErrors(): number {
    return totalParseErrors(this)
  }

  countFiles(): number {
    return countFiles(this)
  }

  // ---------------------------------------------------------------- sessions (sessions.ts)

  /**
   * Store the composed facts of a session, creating it on first sight. Returns its cast id and
   * whether anything changed.
   */
  upsertFacts(
    agent: Agent,
    nativeId: string,
    facts: SessionFacts,
    parentNativeId: string | null,
    context: {now: number; runner: string; device: string},
  ): {id: string; changed: boolean} {
    return upsertFacts(this, agent, nativeId, facts, parentNativeId, context)
  }

  loadFactsByNative(agent: string, nativeId: string): SessionFacts | null {
    return loadFactsByNative(this, agent, nativeId)
  }

  /** Every session id with its native id, for prefix resolution. */
  sessionIds(): {id: string; nativeId: string; agent: string}[] {
    return sessionIds(this)
  }

  /** SQLite's data_version: it changes when another connection commits, not on this one's own writes. */
  dataVersion(): number {
    return this.db.pragma('data_version', {simple: true}) as number
  }

  /** The cast id of the session `agent` names `nativeId` (a keyed lookup). */
  sessionIdByNative(agent: string, nativeId: string): string | null {
    return sessionIdByNative(this, agent, nativeId)
  }

  /** The sessions `typed` can resolve to (an exact or a prefix match), without loading every id. */
  sessionIdCandidates(typed: string): {id: string; nativeId: string; agent: string}[] {
    return sessionIdCandidates(this, typed)
  }

  countSessions(): number {
    return countSessions(this)
  }

  /** Load sessions with their records, owners, labels and open decision. `ids` limits the set. */
  loadSessions(ids?: readonly string[], options?: {holds?: boolean}): SessionRow[] {
    return loadSessions(this, ids, options)
  }

  // ---------------------------------------------------------------- reconcile (reconcile.ts)

  /**
   * Classify and place sessions at `now`; write state, reason and bucket and one transitions row
   * per change, in one transaction. Children are done before their parents, and a changed child
   * brings its parent along. `ids` undefined means every session.
   */
  reconcile(now: number, ids?: readonly string[]): ReconcileResult {
    return reconcile(this, now, ids)
  }

  /** Sessions whose answer may change with time alone, due by `now`. */
  dueForCheck(now: number): string[] {
    return dueForCheck(this, now)
  }

  /** The earliest next_check_at, for the watcher's one timer. */
  nextCheckAt(): number | null {
    return nextCheckAt(this)
  }

  lastSeq(): number {
    return lastSeq(this)
  }

  transitionsSince(seq: number, limit = 1000): Transition[] {
    return transitionsSince(this, seq, limit)
  }

  // ---------------------------------------------------------------- records (records.ts)

  getRecordsRow(sessionId: string): RecordsPatch {
    return getRecordsRow(this, sessionId)
  }

  /** Change a session's records (creating the row). Call inside tx() with reconcile after. */
  patchRecords(sessionId: string, patch: RecordsPatch): void {
    return patchRecords(this, sessionId, patch)
  }

  // ---------------------------------------------------------------- leases (leases.ts)

  /** Take the named lease if it is free, ours, or its holder is dead/stale. */
  acquireLease(
    name: string,
    holder: {pid: number; host: string},
    now: number,
    isStale: (l: Lease) => boolean,
    info: Record<string, unknown> = {},
  ): boolean {
    return acquireLease(this, name, holder, now, isStale, info)
  }

  /**
   * Beat the lease's heart; false when the lease is no longer this holder's. With a token (kept in
   * the lease's info), the holder is that token, not only the pid: pids repeat across pid
   * namespaces and hosts.
   */
  heartbeatLease(name: string, pid: number, now: number, info?: Record<string, unknown>, token?: string): boolean {
    const ok = heartbeatLease(this, name, pid, now, info, token)
    if (ok) this.heartbeats++
    return ok
  }

  /** Rows this connection's heartbeats changed (one each): storeChangeKey leaves them out. */
  heartbeats = 0

  /** Is the lease still this holder's? (Checked inside each of the live ingester's write transactions.) */
  holdsLease(name: string, pid: number, token: string): boolean {
    return holdsLease(this, name, pid, token)
  }

  releaseLease(name: string, pid: number, token?: string): void {
    return releaseLease(this, name, pid, token)
  }

  /**
   * The lease, with a heartbeat (or start) from the future clamped to `now` and written back so:
   * a clock that jumped back, or a forged row, never keeps a dead holder fresh; it goes stale
   * like any other from now on.
   */
  getLease(name: string, now = Date.now()): Lease | null {
    return getLease(this, name, now)
  }

  // ---------------------------------------------------------------- meta

  getMeta(key: string): string | null {
    return str((this.q('SELECT value FROM meta WHERE key = ?').get(key) as Row | undefined)?.value)
  }

  setMeta(key: string, value: string): void {
    this.q('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value)
  }
}
