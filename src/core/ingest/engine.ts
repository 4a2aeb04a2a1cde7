/**
 * The ingest engine (DESIGN §5): discovers the adapters' files, reads append-only files
 * incrementally (offset + resumable parser state per file), re-reads whole files and SQLite
 * sources on change, checks process claims against the process table, composes each session's
 * facts and reconciles its state — every batch in one store transaction, so a crash at any point
 * leaves offsets, facts and the transitions log consistent. A sync with many JSONL bytes to read
 * shares the reading with one worker thread (read-worker.ts); every commit stays on this thread.
 */
import Database from 'better-sqlite3'
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {MessageChannel, receiveMessageOnPort, Worker} from 'node:worker_threads'

import type {Agent, SessionFacts} from '../model/types.js'
import {type FileMarkRow, loadFileMarks, loadFileRow} from '../store/file-marks.js'
import {fileMark, sameMark} from '../store/files.js'
import {sweepSnoozes} from '../store/triage.js'
import type {FileRow, Store} from '../store/store.js'
import type {Adapter, AdapterEnv, CheckedContribution, Contribution, FileMatch, ReadonlyDb} from './adapter.js'
import {composeFacts} from './compose.js'
import {isSameProcessAlive, openFilesOf} from './process-table.js'
import {quietTail, type ReadCounts, type ReadJob, type ReadReply, readJsonlFile, readRegularFile} from './read-worker.js'
import {applyScan, isScanContribution} from './process-scan.js'
import {applyScreen, isScreenContribution} from './screen.js'

export interface IngestOptions {
  readonly clock: () => number
  readonly me: string
  readonly device: string
}

export interface SyncStats {
  files: number
  read: number
  bytes: number
  lines: number
  parseErrors: number
  sessionsChanged: number
  transitions: number
  ms: number
  /** Files left unread by a recent-first pass (SyncOptions.defer), and their bytes. */
  deferred: number
  deferredBytes: number
}

/**
 * Recent first (issue 16 point 1): a pass that answers from the files that can be in the inbox and
 * leaves the others, unread and unrecorded, to a later full pass. A JSONL file (and a whole file
 * naming the same session) waits only when every file of its session (its own, its parent's, its
 * subagents') was last modified before `olderThan` and the session carries none of cast's records.
 */
export interface DeferRule {
  /** Epoch ms: files modified before this (the recency window's start) may wait. */
  readonly olderThan: number
  /** `${agent}\0${nativeId}` of sessions with cast's own records: never deferred. */
  readonly keep: ReadonlySet<string>
  /** Defer only when the files that would wait hold at least this many bytes (else read all). */
  readonly minBytes: number
}

export interface SyncOptions {
  recheck?: boolean
  defer?: DeferRule
}

interface Discovered {
  readonly path: string
  readonly adapter: Adapter
  readonly match: FileMatch
}

interface Pending {
  readonly row: FileRow
  readonly contributions: readonly Contribution[] | null
  readonly deleted?: boolean
  /** The files row this read started from (undefined: a file the store did not know). */
  readonly base?: FileRow
}

/** JSONL bytes to read above which a sync shares the reading with a worker thread. */
const PARALLEL_BYTES = 32 * 1024 * 1024
/** The worker's share of those bytes (the engine also commits every batch). */
const WORKER_SHARE = 0.75
/** A worker with no reply for this long is given up; the engine reads the rest itself. */
const STALL_MS = 30_000
const BATCH_BYTES = 16 * 1024 * 1024
const BATCH_FILES = 400
/** A file modified this recently can still change: the periodic stat sweep looks at it. */
export const RECENT_MS = 15 * 60_000
/** The stat sweep looks at most at this many recent files (the newest first). */
const SWEEP_MAX = 5000

export class Ingester {
  private readonly byAgent: Map<string, Adapter>
  private lastDiscovery: Discovered[] = []
  /** Process claims known to the store, cached until a commit changes contributions. */
  private claims: {agent: string; nativeId: string; data: string}[] | null = null
  /**
   * Files whose state can still change (modified within RECENT_MS, or a last line without its
   * newline), with what the store holds for them: the live ingester's stat sweep (sweep()).
   */
  private readonly recent = new Map<string, FileRow>()
  /**
   * Called now and then during a long pass (discovery, between batches): the live ingester
   * beats the lease's heart there, and may throw to abort the pass (the lease was taken over).
   */
  progress: (() => void) | null = null
  /**
   * Called inside every write transaction before anything is written (the live ingester: is the
   * lease still ours?). It throws to roll the transaction back.
   */
  writeGuard: (() => void) | null = null
  /** Called every few files of a pass: files looked at so far, files in the pass, bytes read (a progress line). */
  readProgress: ((done: number, total: number, bytes: number) => void) | null = null

  constructor(
    private readonly store: Store,
    readonly adapters: readonly Adapter[],
    private readonly ctx: AdapterEnv,
    private readonly opts: IngestOptions,
  ) {
    this.byAgent = new Map(adapters.map((a) => [a.agent, a]))
    this.heldAgents = adapters.filter((a) => (a.openFileProcesses?.length ?? 0) > 0).map((a) => a.agent)
  }

  /** Agents whose files a process holds open (their states record the holder). */
  private readonly heldAgents: string[]

  /** Every root each adapter watches (existing or not). */
  roots(): {agent: Agent; root: string}[] {
    return this.adapters.flatMap((a) => a.roots(this.ctx).map((root) => ({agent: a.agent, root})))
  }

  /** Walk every root and ask the adapters which files matter. */
  discover(): Discovered[] {
    const out: Discovered[] = []
    const seen = new Set<string>()
    for (const adapter of this.adapters) {
      // A root inside another root of the same adapter is walked once, as part of the outer one.
      const roots = adapter.roots(this.ctx).map((r) => path.resolve(r))
      const outer = roots.filter((r) => !roots.some((o) => o !== r && r.startsWith(o + path.sep)))
      for (const root of new Set(outer)) this.walk(adapter, root, out, seen, 0)
    }

    this.lastDiscovery = out
    return out
  }

  private walk(adapter: Adapter, dir: string, out: Discovered[], seen: Set<string>, depth: number): void {
    if (depth > 12) return
    let entries: fs.Dirent[]
    try {
      entries = fs.readdirSync(dir, {withFileTypes: true})
    } catch {
      return
    }

    if (entries.length > 0) this.progress?.()
    for (const e of entries) {
      const p = path.join(dir, e.name)
      // Symlinks under a root are not followed (a loop, or a link to another root, would read a
      // file twice or without end): only real folders and regular files are walked.
      if (e.isDirectory()) {
        if (adapter.skipDir?.(p)) continue
        this.walk(adapter, p, out, seen, depth + 1)
      } else if (e.isFile()) {
        const key = `${adapter.agent}\0${p}`
        if (seen.has(key)) continue
        seen.add(key)
        const match = adapter.match(p, this.ctx)
        if (match) out.push({adapter, match, path: p})
      }
    }
  }

  /**
   * One incremental pass: discover, read what changed, forget what vanished, re-check known
   * processes, reconcile. `only` limits reading to those paths (the watcher's coalesced events).
   */
  sync(only?: ReadonlySet<string>, options: SyncOptions = {}): SyncStats {
    const t0 = performance.now()
    const stats: SyncStats = {bytes: 0, deferred: 0, deferredBytes: 0, files: 0, lines: 0, ms: 0, parseErrors: 0, read: 0, sessionsChanged: 0, transitions: 0}
    let found = only ? this.lastDiscovery.filter((d) => only.has(d.path)) : this.discover()
    if (only) {
      // Paths the watcher saw that discovery had not: new files.
      const known = new Set(found.map((d) => d.path))
      for (const p of only) {
        if (known.has(p) || isSymlink(p)) continue
        for (const adapter of this.adapters) {
          if (!adapter.roots(this.ctx).some((r) => p === r || p.startsWith(r + path.sep))) continue
          const match = adapter.match(p, this.ctx)
          if (match) {
            const d = {adapter, match, path: p}
            found.push(d)
            this.lastDiscovery.push(d)
          }
        }
      }
    }

    stats.files = found.length
    // Marks only: a parser's state is loaded for the files this pass may read (below).
    const known: Map<string, FileRow> = loadFileMarks(this.store, this.heldAgents)
    const holders = this.openHandles()
    let batch: Pending[] = []
    let batchBytes = 0
    const flush = (): void => {
      if (batch.length === 0) return
      const r = this.commit(batch)
      stats.sessionsChanged += r.sessions
      stats.transitions += r.transitions
      batch = []
      batchBytes = 0
    }

    const present = new Set<string>()
    const recentFrom = Date.now() - RECENT_MS
    // Stat once up front: a sync with many JSONL bytes to read shares them with a read worker
    // (the other core), and its results are committed here in the same order and batches.
    let sts = found.map((d, i) => {
      if (i % 500 === 499) this.progress?.()
      return statOrNull(d.path)
    })
    for (const [i, d] of found.entries()) {
      const mark = known.get(d.path) as FileMarkRow | undefined
      if (!mark || mark.stateLoaded || mark.kind !== 'jsonl') continue
      const st = sts[i]
      const same = st && mark.dev === st.dev && mark.ino === st.ino && mark.size === st.size && mark.mtimeMs === Math.floor(st.mtimeMs)
      if (same && !mark.held && !holders.has(d.path)) continue
      const full = loadFileRow(this.store, d.path)
      if (full) known.set(d.path, full)
    }

    if (options.defer && !only) {
      const waiting = deferredFiles(found, sts, known, options.defer)
      if (waiting.size > 0) {
        for (const i of waiting) {
          present.add(found[i]!.path)
          stats.deferredBytes += sts[i]?.size ?? 0
        }

        stats.deferred = waiting.size
        found = found.filter((_, i) => !waiting.has(i))
        sts = sts.filter((_, i) => !waiting.has(i))
      }
    }

    const share = this.shareReads(found, sts, known, holders)
    try {
      for (const [i, d] of found.entries()) {
        present.add(d.path)
        if (i % 100 === 99) this.progress?.()
        const prevRow = known.get(d.path)
        if (prevRow && (prevRow.mtimeMs >= recentFrom || prevRow.offset < prevRow.size)) this.recent.set(d.path, prevRow)
        let pending: Pending | null | undefined
        if (share?.toWorker.has(i)) {
          const reply = share.reader.next()
          if (reply?.ok) {
            pending = reply.result
            addCounts(stats, reply.counts)
          }
        }

        if (pending === undefined) pending = this.readOne(d, known.get(d.path), holders, stats, sts[i])
        if (this.readProgress && i % 50 === 49) this.readProgress(i + 1, found.length, stats.bytes)
        if (!pending) continue
        batch.push({...pending, base: known.get(d.path)})
        batchBytes += pending.row.size - (known.get(d.path)?.offset ?? 0)
        if (batch.length >= BATCH_FILES || batchBytes >= BATCH_BYTES) {
          flush()
          this.progress?.()
        }
      }
    } finally {
      share?.reader.stop()
    }

    if (!only) {
      for (const [p, row] of known) {
        if (present.has(p)) continue
        if (!this.byAgent.has(row.agent)) continue
        // Hook state and screen readings are sources, not files: they never vanish from disk.
        if (p.includes('://')) continue
        batch.push({base: row, contributions: null, deleted: true, row})
      }
    }

    flush()
    if (options.recheck ?? !only) {
      const recheck = this.recheckProcesses()
      stats.sessionsChanged += recheck.sessions
      stats.transitions += recheck.transitions
    }

    stats.ms = performance.now() - t0
    return stats
  }

  /**
   * When the JSONL bytes to read pass PARALLEL_BYTES, start one read worker and give it about
   * WORKER_SHARE of those bytes, file by file in discovery order; null for a small sync.
   */
  private shareReads(
    found: readonly Discovered[],
    sts: readonly (fs.Stats | undefined)[],
    known: ReadonlyMap<string, FileRow>,
    holders: ReadonlyMap<string, number>,
  ): {toWorker: Set<number>; reader: Reader} | null {
    const todo: {i: number; bytes: number}[] = []
    let total = 0
    for (const [i, d] of found.entries()) {
      const st = sts[i]
      if (d.match.kind !== 'jsonl' || !d.adapter.jsonl || !st?.isFile()) continue
      const prev = known.get(d.path)
      if (prev && prev.dev === st.dev && prev.ino === st.ino && prev.size === st.size && prev.mtimeMs === Math.floor(st.mtimeMs)) continue
      const bytes = prev && prev.dev === st.dev && prev.ino === st.ino && st.size >= prev.offset ? st.size - prev.offset : st.size
      todo.push({bytes, i})
      total += bytes
    }

    if (total < PARALLEL_BYTES || todo.length < 2) return null
    const toWorker = new Set<number>()
    const jobs: ReadJob[] = []
    const now = this.opts.clock()
    let given = 0
    let seen = 0
    for (const {bytes, i} of todo) {
      if (given < WORKER_SHARE * seen) {
        const d = found[i]!
        toWorker.add(i)
        jobs.push({agent: d.adapter.agent, holder: holders.get(d.path) ?? null, match: d.match as FileMatch & {kind: 'jsonl'}, now, path: d.path, prev: known.get(d.path)})
        given += bytes
      }

      seen += bytes
    }

    const reader = startReader(jobs)
    return reader ? {reader, toWorker} : null
  }

  /** Which files the adapters' agents hold open right now (openFileProcesses), path -> pid. */
  private openHandles(): Map<string, number> {
    const names = this.adapters.flatMap((a) => a.openFileProcesses ?? [])
    return names.length > 0 ? openFilesOf(names) : new Map()
  }

  private readOne(d: Discovered, prev: FileRow | undefined, holders: Map<string, number>, stats: SyncStats, pre?: fs.Stats): Pending | null {
    if (d.match.kind === 'jsonl') {
      return readJsonlFile(d.adapter, d.match, d.path, prev, holders.get(d.path) ?? null, this.opts.clock(), stats, pre)
    }

    let st: fs.Stats
    try {
      st = pre ?? fs.statSync(d.path)
    } catch {
      return null
    }

    if (!st.isFile()) return null
    let mtimeMs = Math.floor(st.mtimeMs)
    let size = st.size
    if (d.match.kind === 'sqlite') {
      // WAL: commits land in <db>-wal and reach the main file only at a checkpoint, so the
      // database has changed when either file has.
      try {
        const wal = fs.statSync(`${d.path}-wal`)
        mtimeMs = Math.max(mtimeMs, Math.floor(wal.mtimeMs))
        size += wal.size
      } catch {
        // no -wal file: the main file says it all
      }
    }

    if (prev && prev.dev === st.dev && prev.ino === st.ino && prev.size === size && prev.mtimeMs === mtimeMs) return null
    const now = this.opts.clock()
    const base: Omit<FileRow, 'offset' | 'parseErrors' | 'state'> = {
      agent: d.adapter.agent,
      dev: st.dev,
      ino: st.ino,
      kind: d.match.kind,
      mtimeMs,
      path: d.path,
      readAt: now,
      size,
    }
    stats.read++
    try {
      if (d.match.kind === 'whole') {
        const text = readRegularFile(d.path)
        if (text === null) return null
        stats.bytes += st.size
        let contributions: Contribution[]
        try {
          contributions = d.adapter.parseWhole?.(d.path, text, d.match) ?? []
        } catch {
          // A file caught mid-rewrite: counted in this pass; what it said before stands, and the
          // next pass reads it again (its row is not updated, so it still looks changed).
          stats.parseErrors++
          return null
        }

        return {contributions, row: {...base, offset: st.size, parseErrors: 0, state: null}}
      }

      // SQLite: opened read-only; a locked or half-written database keeps what it said before and
      // is tried again on the next pass.
      let contributions: Contribution[]
      try {
        contributions = this.readSqlite(d)
      } catch {
        stats.parseErrors++
        return null
      }

      return {contributions, row: {...base, offset: st.size, parseErrors: 0, state: null}}
    } catch {
      return null
    }
  }

  private readSqlite(d: Discovered): Contribution[] {
    if (!d.adapter.readSqlite || d.match.kind !== 'sqlite') return []
    const db = new Database(d.path, {fileMustExist: true, readonly: true, timeout: 2000})
    try {
      const handle: ReadonlyDb = {
        all: (sql, ...params) => db.prepare(sql).all(...params) as Record<string, unknown>[],
        columns: (table) => (db.prepare(`PRAGMA table_info(${JSON.stringify(table)})`).all() as {name: string}[]).map((c) => c.name),
      }
      return d.adapter.readSqlite(handle, d.path, d.match)
    } finally {
      db.close()
    }
  }

  /** Write one batch: files, contributions, recomposed sessions and their transitions. */
  private commit(batch: readonly Pending[]): {sessions: number; transitions: number} {
    this.claims = null
    return this.store.tx(() => {
      this.writeGuard?.()
      const affected = new Map<string, {agent: Agent; nativeId: string}>()
      for (const p of batch) {
        if (!this.stillCurrent(p)) continue
        if (p.deleted) {
          this.recent.delete(p.row.path)
          for (const a of this.store.deleteFile(p.row.path)) affected.set(`${a.agent}\0${a.nativeId}`, {agent: a.agent as Agent, nativeId: a.nativeId})
          continue
        }

        this.store.saveFile(p.row)
        this.recent.set(p.row.path, p.row)
        if (p.contributions) {
          const changed = this.store.replaceContributions(
            p.row.path,
            p.row.agent,
            p.contributions.map((c) => ({data: JSON.stringify(c), nativeId: c.nativeId})),
          )
          for (const nativeId of changed) affected.set(`${p.row.agent}\0${nativeId}`, {agent: p.row.agent as Agent, nativeId})
        }
      }

      return this.recompose([...affected.values()])
    })
  }

  /**
   * Inside the commit: is this read still the newest? Another process may have synced the same
   * file since `known` was loaded (every command syncs when no daemon runs). Its commit wins
   * unless ours read further along the same append-only file; otherwise saving ours would put
   * older offsets and facts back, and log a transition backwards.
   */
  private stillCurrent(p: Pending): boolean {
    const cur = fileMark(this.store, p.row.path)
    if (sameMark(cur, p.base)) return true
    if (p.deleted || !cur || p.row.kind !== 'jsonl') return false
    return cur.dev === p.row.dev && cur.ino === p.row.ino && cur.offset <= p.row.offset
  }

  /** Compose facts for sessions from their stored contributions and reconcile the changed ones. */
  recompose(sessions: readonly {agent: Agent; nativeId: string}[]): {sessions: number; transitions: number} {
    // The screen sweep and the process scan write claims through here: re-read them next check.
    this.claims = null
    this.writeGuard?.()
    const now = this.opts.clock()
    const changedIds: string[] = []
    const alive = new Map<string, boolean>()
    for (const s of sessions) {
      const adapter = this.byAgent.get(s.agent)
      if (!adapter) continue
      const stored = this.store.contributionsFor(s.agent, s.nativeId)
      if (stored.length === 0) continue
      const contribs: CheckedContribution[] = stored.map((c) => {
        const parsed = JSON.parse(c.data) as Contribution
        if (!parsed.processClaim) return parsed
        const key = `${parsed.processClaim.pid}:${parsed.processClaim.startedAt}`
        let ok = alive.get(key)
        if (ok === undefined) {
          ok = claimAlive(parsed.processClaim.pid, parsed.processClaim.startedAt)
          alive.set(key, ok)
        }

        return {...parsed, processAlive: ok}
      })
      // Only files that describe the conversation create a session; a registry alone does not.
      if (!contribs.some((c) => c.facts.messages !== undefined || c.facts.title !== undefined || c.facts.cwd !== undefined)) continue
      let facts: SessionFacts
      try {
        // Terminal fallback (screen.ts): the adapter composes its own sources, then the screen
        // fills in a wait only where they cannot show one.
        const own = contribs.filter((c) => !isScreenContribution(c) && !isScanContribution(c))
        facts = adapter.compose ? adapter.compose(s.nativeId, own) : composeFacts(own)
        facts = applyScan(facts, contribs) // process-scan.ts: a claim where the files name no process
        facts = applyScreen(facts, contribs)
      } catch {
        continue
      }

      const r = this.store.upsertFacts(s.agent, s.nativeId, facts, facts.parentNativeId, {
        device: this.opts.device,
        now,
        runner: this.opts.me,
      })
      if (r.changed) changedIds.push(r.id)
    }

    const rec = this.store.reconcile(now, changedIds)
    return {sessions: changedIds.length, transitions: rec.transitions}
  }

  /**
   * Re-check every known process claim against the process table (cheap: a kill(0) and a /proc
   * read per pid) and recompose the sessions whose answer changed, so a crash reads dead.
   */
  recheckProcesses(): {sessions: number; transitions: number} {
    this.claims ??= this.store.sessionsWithProcessClaims()
    const claims = this.claims
    const changed: {agent: Agent; nativeId: string}[] = []
    const seen = new Set<string>()
    const rows = new Map<string, SessionFacts>()
    for (const c of claims) {
      const key = `${c.agent}\0${c.nativeId}`
      if (seen.has(key)) continue
      const parsed = JSON.parse(c.data) as Contribution
      if (!parsed.processClaim) continue
      const nowAlive = claimAlive(parsed.processClaim.pid, parsed.processClaim.startedAt)
      let facts = rows.get(key)
      if (!facts) {
        const s = this.store.loadFactsByNative(c.agent, c.nativeId)
        if (!s) continue
        facts = s
        rows.set(key, s)
      }

      if (facts.process?.pid === parsed.processClaim.pid && facts.process.alive === nowAlive) continue
      if (facts.process && facts.process.pid !== parsed.processClaim.pid && facts.process.alive && !nowAlive) continue
      seen.add(key)
      changed.push({agent: c.agent as Agent, nativeId: c.nativeId})
    }

    if (changed.length === 0) return {sessions: 0, transitions: 0}
    return this.store.tx(() => this.recompose(changed))
  }

  /**
   * The cheap periodic stat sweep (DESIGN §5): stat each file whose state can still change and
   * return those that differ from what the store holds, so a write the file watcher dropped
   * (chokidar drops a second change of a path within 50 ms) is read anyway, and a last line
   * without its newline is read once the file is quiet. Files quiet for RECENT_MS leave the set.
   */
  sweep(): Set<string> {
    const out = new Set<string>()
    const now = Date.now()
    if (this.recent.size > SWEEP_MAX) {
      const newest = [...this.recent].sort((a, b) => b[1].mtimeMs - a[1].mtimeMs).slice(SWEEP_MAX)
      for (const [p] of newest) this.recent.delete(p)
    }

    for (const [p, row] of this.recent) {
      if (p.includes('://')) {
        this.recent.delete(p)
        continue
      }

      const st = lstatOrNull(p)
      if (!st?.isFile()) {
        this.recent.delete(p)
        out.add(p)
        continue
      }

      let mtimeMs = Math.floor(st.mtimeMs)
      let size = st.size
      if (row.kind === 'sqlite') {
        const wal = statOrNull(`${p}-wal`)
        if (wal) {
          mtimeMs = Math.max(mtimeMs, Math.floor(wal.mtimeMs))
          size += wal.size
        }
      }

      if (row.dev !== st.dev || row.ino !== st.ino || row.size !== size || row.mtimeMs !== mtimeMs) out.add(p)
      else if (row.kind === 'jsonl' && row.offset < row.size && quietTail(row, now)) out.add(p)
      else if (mtimeMs < now - RECENT_MS && row.offset >= row.size) this.recent.delete(p)
    }

    return out
  }

  /** Reconcile sessions whose answer may have changed with time alone (snooze end, TTLs). */
  tick(): number {
    // The same step `cast snooze sweep` takes: due snoozes are woken (their filing cleared), and
    // every other session whose time rules came due is re-checked.
    return sweepSnoozes(this.store, this.opts.clock()).transitions
  }
}

export {readLines} from './read-worker.js'

/** A claim is a live process only with a start time that matches (DESIGN §5: no start time, no proof of life). */
function claimAlive(pid: number, startedAt: number | null | undefined): boolean {
  if (typeof startedAt !== 'number') return false
  return isSameProcessAlive(pid, startedAt)
}

/** Which of `found` a recent-first pass leaves unread (DeferRule): indices into `found`. */
function deferredFiles(
  found: readonly Discovered[],
  sts: readonly (fs.Stats | undefined)[],
  known: ReadonlyMap<string, FileRow>,
  rule: DeferRule,
): Set<number> {
  // A session's group: its own id, or its parent's for a subagent's file.
  const groupOf = (d: Discovered): string | null => {
    if (d.match.kind !== 'jsonl') return null
    return `${d.adapter.agent}\0${d.match.parentNativeId ?? d.match.nativeId}`
  }

  const hot = new Set<string>()
  const candidates: number[] = []
  for (const [i, d] of found.entries()) {
    const g = groupOf(d)
    if (g === null) continue
    const st = sts[i]
    if (!st) continue
    const prev = known.get(d.path)
    const unchanged = prev && prev.dev === st.dev && prev.ino === st.ino && prev.size === st.size && prev.mtimeMs === Math.floor(st.mtimeMs)
    if (unchanged) continue
    if (st.mtimeMs >= rule.olderThan || rule.keep.has(g) || rule.keep.has(`${d.adapter.agent}\0${(d.match as {nativeId: string}).nativeId}`)) hot.add(g)
    else candidates.push(i)
  }

  const waiting = new Set<number>()
  const waitingIds = new Set<string>()
  let bytes = 0
  for (const i of candidates) {
    const d = found[i]!
    if (hot.has(groupOf(d)!)) continue
    waiting.add(i)
    waitingIds.add(`${d.adapter.agent}\0${(d.match as {nativeId: string}).nativeId}`)
    bytes += sts[i]?.size ?? 0
  }

  if (bytes < rule.minBytes) return new Set()
  // A whole file about one of those sessions (a subagent's .meta.json) waits with it.
  for (const [i, d] of found.entries()) {
    if (d.match.kind !== 'whole' || d.match.nativeId === undefined) continue
    const st = sts[i]
    if (!st || st.mtimeMs >= rule.olderThan || known.has(d.path)) continue
    if (waitingIds.has(`${d.adapter.agent}\0${d.match.nativeId}`)) waiting.add(i)
  }

  return waiting
}

function isSymlink(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink()
  } catch {
    return false
  }
}

function lstatOrNull(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file)
  } catch {
    return undefined
  }
}

function statOrNull(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file)
  } catch {
    return undefined
  }
}

function addCounts(stats: SyncStats, c: ReadCounts): void {
  stats.read += c.read
  stats.bytes += c.bytes
  stats.lines += c.lines
  stats.parseErrors += c.parseErrors
}

/** The engine's end of the read worker: its replies, one per job, in job order. */
interface Reader {
  /** The next reply; null when the worker is gone or stalled (the engine then reads the file). */
  next(): ReadReply | null
  stop(): void
}

function startReader(jobs: readonly ReadJob[]): Reader | null {
  // Only the built module can run as a worker (tests importing the .ts source read inline).
  const url = new URL('./read-worker.js', import.meta.url)
  if (url.protocol !== 'file:' || !fs.existsSync(fileURLToPath(url))) return null
  const {port1, port2} = new MessageChannel()
  const signal = new Int32Array(new SharedArrayBuffer(4))
  let worker: Worker
  try {
    worker = new Worker(url, {transferList: [port2], workerData: {castReadWorker: true, jobs, port: port2, signal}})
  } catch {
    port1.close()
    return null
  }

  worker.on('error', () => {})
  worker.unref()
  let taken = 0
  let dead = false
  const stop = (): void => {
    dead = true
    port1.close()
    worker.terminate().catch(() => {})
  }

  return {
    next() {
      const from = Date.now()
      while (!dead) {
        const m = receiveMessageOnPort(port1)
        if (m) {
          taken++
          return m.message as ReadReply
        }

        // The worker bumps the counter after each post: sleep while it has posted nothing new.
        Atomics.wait(signal, 0, taken, 100)
        if (Date.now() - from > STALL_MS) stop()
      }

      return null
    },
    stop,
  }
}
