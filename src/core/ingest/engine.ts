/**
 * The ingest engine (docs/contract.md §5): discovers the adapters' files (discover.ts), reads append-only
 * files incrementally (offset + resumable parser state per file, jsonl-read.ts), re-reads whole
 * files and SQLite sources on change (whole-read.ts), checks process claims against the process
 * table, composes each session's facts and reconciles its state (recompose.ts) — every batch in
 * one store transaction, so a crash at any point leaves offsets, facts and the transitions log
 * consistent. A sync with many JSONL bytes to read shares the reading with one worker thread
 * (read-share.ts, read-worker.ts); every commit stays on this thread.
 */
import fs from 'node:fs'

import type {Agent} from '../model/types.js'
import {fileMark, sameMark} from '../store/files.js'
import {sweepSnoozes} from '../store/triage.js'
import type {FileRow, Store} from '../store/store.js'
import type {Adapter, AdapterEnv} from './adapter.js'
import {type DeferRule, deferredFiles} from './defer.js'
import {type Discovered, discoverFiles, discoverPaths} from './discover.js'
import {type ReadCounts, readJsonlFile} from './jsonl-read.js'
import {openFilesOf} from './process-table.js'
import {Batcher, type Pending, pendingOf} from './batch.js'
import {shareReads} from './read-share.js'
import {RECENT_MS, statOrNull, sweepRecent, unchangedFile} from './stat-sweep.js'
import {adoptPass, statPass, type WalkedPass, watchedRows} from './stat-pass.js'
import {claimsChanged, recomposeSessions, type SessionKey} from './recompose.js'
import {readWholeFile} from './whole-read.js'
import {commitTailAsks, readTailsHere, type TailAsk, type TailFile, tailFiles} from './tail-ask.js'

export type {DeferRule} from './defer.js'
export type {Discovered} from './discover.js'
export {readLines} from './file-read.js'

export interface IngestOptions {
  readonly clock: () => number
  readonly me: string
  readonly device: string
  /** 1: read on this thread only (a check that the shared read stores the same); default: share a big read with a worker. */
  readonly readThreads?: 1 | 2
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

export interface SyncOptions {
  recheck?: boolean
  defer?: DeferRule
  /** A full pass walked already, over the path rules (stat-pass.ts WalkedPass): not walked again. */
  walked?: WalkedPass
}

/** The files of one pass, each stat taken up front (undefined: gone), and whether it can be skipped unread (unchangedFile). */
interface PassFiles {
  found: Discovered[]
  sts: (fs.Stats | undefined)[]
  idle: boolean[]
}

/** One pass's files, what the store holds for them, and the rows of the files gone. */
interface Pass {
  pass: PassFiles
  known: Map<string, FileRow>
  gone: FileRow[]
  files: number
}

export class Ingester {
  private readonly byAgent: Map<string, Adapter>
  private lastDiscovery: Discovered[] = []
  /** Process claims known to the store, cached until a commit changes contributions. */
  private claims: {agent: string; nativeId: string; data: string; path: string}[] | null = null
  /**
   * Files whose state can still change (modified within RECENT_MS, or a last line without its
   * newline), with what the store holds for them: the live ingester's stat sweep (sweep()).
   */
  private readonly recent = new Map<string, FileRow>()
  /** Stat sweeps so far: which share of the quiet recent files this one looks at. */
  private sweeps = 0
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
    readonly ctx: AdapterEnv,
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
    const out = discoverFiles(this.adapters, this.ctx, this.progress)
    this.lastDiscovery = out
    return out
  }

  /**
   * One incremental pass: discover, read what changed, forget what vanished, re-check known
   * processes, reconcile. `only` limits reading to those paths (the watcher's coalesced events).
   */
  sync(only?: ReadonlySet<string>, options: SyncOptions = {}): SyncStats {
    const t0 = performance.now()
    const stats: SyncStats = {
      bytes: 0,
      deferred: 0,
      deferredBytes: 0,
      files: 0,
      lines: 0,
      ms: 0,
      parseErrors: 0,
      read: 0,
      sessionsChanged: 0,
      transitions: 0,
    }
    const holders = options.walked?.holders ?? this.openHandles()
    const {pass, known, gone, files} = only ? this.pathsPass(only, holders) : this.fullPass(holders, options.walked)
    stats.files = files
    // Only a file that changed can be left for later: with none, there is nothing to defer.
    const tails = options.defer && !only && pass.idle.includes(false) ? this.defer(pass, known, options.defer, stats) : []
    const batch = new Batcher(
      (b) => this.commit(b),
      stats,
      () => this.progress?.(),
    )
    const asks = this.readPass(pass, known, holders, batch, stats, tails)
    for (const row of gone) {
      if (!this.byAgent.has(row.agent)) continue
      // Hook state and screen readings are sources, not files: they never vanish from disk.
      if (row.path.includes('://')) continue
      batch.add({base: row, contributions: null, deleted: true, row}, 0)
    }

    batch.flush()
    // An open ask sits at a file's end: the unread files whose tails end on one show now (tail-ask.ts).
    commitTailAsks(this.store, asks, (s) => this.recompose(s), this.writeGuard, stats, this.opts.clock())
    if (options.recheck ?? !only) {
      const recheck = this.recheckProcesses()
      stats.sessionsChanged += recheck.sessions
      stats.transitions += recheck.transitions
    }

    stats.ms = performance.now() - t0
    return stats
  }

  /**
   * A full pass: the walk, the stats and the comparison with the store's marks in one
   * (stat-pass.ts); what it keeps are the files that may have changed, and the files gone.
   */
  private fullPass(holders: ReadonlyMap<string, number>, walked?: WalkedPass): Pass {
    // The watcher's passes match their paths afresh (filesOf) until the next discovery.
    this.lastDiscovery = []
    const p = walked
      ? adoptPass(walked.pass, this.byAgent)
      : statPass(this.store, this.adapters, this.ctx, holders, this.progress, Date.now() - RECENT_MS)
    for (const row of p.recent) this.recent.set(row.path, row)
    return {files: p.files, gone: p.gone, known: p.known, pass: {found: p.found, idle: p.found.map(() => false), sts: p.sts}}
  }

  /** A pass over the watcher's paths: each stat'ed and compared with its mark; those gone from disk are forgotten. */
  private pathsPass(only: ReadonlySet<string>, holders: ReadonlyMap<string, number>): Pass {
    const found = this.filesOf(only)
    const pass: PassFiles = {found, idle: [], sts: found.map((d) => statOrNull(d.path))}
    const known = watchedRows(this.store, this.heldAgents, found, pass.sts, holders)
    const now = Date.now()
    pass.idle = found.map((d, i) => unchangedFile(d.match.kind, pass.sts[i], known.get(d.path), holders.has(d.path), now))
    const gone = [...only].flatMap((p) => {
      const row = known.get(p)
      return row && statOrNull(p) === undefined ? [row] : []
    })
    return {files: found.length, gone, known, pass}
  }

  /** The watcher's paths, new ones matched. */
  private filesOf(only: ReadonlySet<string>): Discovered[] {
    const found = this.lastDiscovery.filter((d) => only.has(d.path))
    // Paths the watcher saw that discovery had not: new files.
    const added = discoverPaths(this.adapters, this.ctx, only, new Set(found.map((d) => d.path)))
    found.push(...added)
    this.lastDiscovery.push(...added)
    return found
  }

  /** A recent-first pass: leave the files DeferRule allows out of `pass` (walked, so not forgotten); those whose tails to read. */
  private defer(pass: PassFiles, known: ReadonlyMap<string, FileRow>, rule: DeferRule, stats: SyncStats): TailFile[] {
    const waiting = deferredFiles(pass.found, pass.sts, known, rule)
    if (waiting.size === 0) return []
    const tails = tailFiles(pass.found, pass.sts, waiting)
    for (const i of waiting) {
      stats.deferredBytes += pass.sts[i]?.size ?? 0
    }

    stats.deferred = waiting.size
    pass.found = pass.found.filter((_, i) => !waiting.has(i))
    pass.sts = pass.sts.filter((_, i) => !waiting.has(i))
    pass.idle = pass.idle.filter((_, i) => !waiting.has(i))
    return tails
  }

  /**
   * Read every file of the pass in order (the worker's share from its replies) into batches, and
   * the `tails` (on the worker meanwhile, if one runs): those that end on an open ask.
   */
  private readPass(
    pass: PassFiles,
    known: ReadonlyMap<string, FileRow>,
    holders: ReadonlyMap<string, number>,
    batch: Batcher,
    stats: SyncStats,
    tails: readonly TailFile[],
  ): TailAsk[] {
    const {found, idle, sts} = pass
    const recentFrom = Date.now() - RECENT_MS
    // An unchanged file is never read (shareReads leaves it out, its mark equals its stat).
    const share =
      this.opts.readThreads === 1 || (!idle.includes(false) && tails.length === 0)
        ? null
        : shareReads(found, sts, known, holders, this.opts.clock(), tails)
    // The engine's read of a shared file (in its turn, or ahead of it while the worker reads).
    const readSelf = (i: number): Pending | null => this.readOne(found[i]!, known.get(found[i]!.path), holders, stats, sts[i])
    try {
      for (const [i, d] of found.entries()) {
        if (i % 100 === 99) this.progress?.()
        const prevRow = known.get(d.path)
        if (prevRow && (prevRow.mtimeMs >= recentFrom || prevRow.offset < prevRow.size)) this.recent.set(d.path, prevRow)
        // An unchanged file: reading it would yield nothing.
        let pending: Pending | null
        if (idle[i]) {
          pending = null
        } else if (share?.has(i)) {
          const shared = share.take(i, readSelf)
          if (shared.counts) addCounts(stats, shared.counts)
          pending = shared.result
        } else {
          pending = this.readOne(d, prevRow, holders, stats, sts[i])
        }

        if (this.readProgress && i % 50 === 49) this.readProgress(i + 1, found.length, stats.bytes)
        if (!pending) continue
        batch.add({...pending, base: prevRow}, pending.row.size - (prevRow?.offset ?? 0))
      }

      return share ? share.tailAsks() : readTailsHere(tails)
    } finally {
      share?.stop()
    }
  }

  /** Which files the adapters' agents hold open right now (openFileProcesses), path -> pid. */
  private openHandles(): Map<string, number> {
    const names = this.adapters.flatMap((a) => a.openFileProcesses ?? [])
    return names.length > 0 ? openFilesOf(names) : new Map<string, number>()
  }

  private readOne(
    d: Discovered,
    prev: FileRow | undefined,
    holders: ReadonlyMap<string, number>,
    counts: ReadCounts,
    pre?: fs.Stats,
  ): Pending | null {
    if (d.match.kind === 'jsonl')
      return pendingOf(readJsonlFile(d.adapter, d.match, d.path, prev, holders.get(d.path) ?? null, this.opts.clock(), counts, pre))
    return pendingOf(readWholeFile(d, prev, this.opts.clock(), counts, pre))
  }

  /** Write one batch: files, contributions, recomposed sessions and their transitions. */
  private commit(batch: readonly Pending[]): {sessions: number; transitions: number} {
    this.claims = null
    return this.store.tx(() => {
      this.writeGuard?.()
      const affected = new Map<string, SessionKey>()
      for (const p of batch) {
        if (!this.stillCurrent(p)) continue
        if (p.deleted) {
          this.recent.delete(p.row.path)
          for (const a of this.store.deleteFile(p.row.path))
            affected.set(`${a.agent}\0${a.nativeId}`, {agent: a.agent, nativeId: a.nativeId})
          continue
        }

        this.store.saveFile(p.row)
        this.recent.set(p.row.path, p.row)
        if (p.contributions) {
          const changed = this.store.replaceContributions(p.row.path, p.row.agent, p.contributions)
          for (const nativeId of changed) affected.set(`${p.row.agent}\0${nativeId}`, {agent: p.row.agent, nativeId})
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
    const env = {byAgent: this.byAgent, device: this.opts.device, me: this.opts.me, now: this.opts.clock(), store: this.store}
    return recomposeSessions(env, sessions)
  }

  /**
   * Re-check every known process claim against the process table (cheap: a kill(0) and a /proc
   * read per pid) and recompose the sessions whose answer changed, so a crash reads dead.
   */
  recheckProcesses(): {sessions: number; transitions: number} {
    const claims = (this.claims ??= this.store.sessionsWithProcessClaims())
    const changed = claimsChanged(this.store, claims)
    if (changed.length === 0) return {sessions: 0, transitions: 0}
    // A claim whose file is gone (deleted on a clean exit, not reported yet) goes with it: no crash.
    const touched = new Set(changed.map((k) => `${k.agent}\0${k.nativeId}`))
    const gone = claims.filter((c) => touched.has(`${c.agent}\0${c.nativeId}`) && !c.path.includes('://') && !statOrNull(c.path))
    return this.store.tx(() => {
      for (const g of gone) {
        this.store.deleteFile(g.path)
        this.recent.delete(g.path)
      }

      return this.recompose(changed)
    })
  }

  /**
   * The cheap periodic stat sweep (docs/contract.md §5): stat each file whose state can still change and
   * return those that differ from what the store holds, so a write the file watcher dropped
   * (chokidar drops a second change of a path within 50 ms) is read anyway, and a last line
   * without its newline is read once the file is quiet. Files quiet for RECENT_MS leave the set.
   */
  sweep(): Set<string> {
    return sweepRecent(this.recent, this.sweeps++, Date.now())
  }

  /** Reconcile sessions whose answer may have changed with time alone (snooze end, TTLs). */
  tick(): number {
    // The same step `cast snooze sweep` takes: due snoozes are woken (their filing cleared), and
    // every other session whose time rules came due is re-checked.
    return sweepSnoozes(this.store, this.opts.clock()).transitions
  }
}

function addCounts(stats: SyncStats, c: ReadCounts): void {
  stats.read += c.read
  stats.bytes += c.bytes
  stats.lines += c.lines
  stats.parseErrors += c.parseErrors
}
