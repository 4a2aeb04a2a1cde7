/**
 * The ingest engine (DESIGN §5): discovers the adapters' files, reads append-only files
 * incrementally (offset + resumable parser state per file), re-reads whole files and SQLite
 * sources on change, checks process claims against the process table, composes each session's
 * facts and reconciles its state — every batch in one store transaction, so a crash at any point
 * leaves offsets, facts and the transitions log consistent.
 */
import Database from 'better-sqlite3'
import fs from 'node:fs'
import path from 'node:path'

import type {Agent, SessionFacts} from '../model/types.js'
import {fileMark, sameMark} from '../store/files.js'
import {sweepSnoozes} from '../store/triage.js'
import type {FileRow, Store} from '../store/store.js'
import type {Adapter, AdapterEnv, CheckedContribution, Contribution, FileMatch, ReadonlyDb} from './adapter.js'
import {composeFacts} from './compose.js'
import {isSameProcessAlive, openFilesOf, processStartTime} from './process-table.js'
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

const CHUNK = 1 << 20
/** A single line longer than this is skipped and counted, never buffered whole. */
const MAX_LINE = 64 * 1024 * 1024
const BATCH_BYTES = 16 * 1024 * 1024
const BATCH_FILES = 400

export class Ingester {
  private readonly byAgent: Map<string, Adapter>
  private lastDiscovery: Discovered[] = []
  /** Process claims known to the store, cached until a commit changes contributions. */
  private claims: {agent: string; nativeId: string; data: string}[] | null = null

  constructor(
    private readonly store: Store,
    readonly adapters: readonly Adapter[],
    private readonly ctx: AdapterEnv,
    private readonly opts: IngestOptions,
  ) {
    this.byAgent = new Map(adapters.map((a) => [a.agent, a]))
  }

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

    for (const e of entries) {
      const p = path.join(dir, e.name)
      if (e.isDirectory()) {
        if (adapter.skipDir?.(p)) continue
        this.walk(adapter, p, out, seen, depth + 1)
      } else if (e.isFile() || e.isSymbolicLink()) {
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
  sync(only?: ReadonlySet<string>, options: {recheck?: boolean} = {}): SyncStats {
    const t0 = performance.now()
    const stats: SyncStats = {bytes: 0, files: 0, lines: 0, ms: 0, parseErrors: 0, read: 0, sessionsChanged: 0, transitions: 0}
    const found = only ? this.lastDiscovery.filter((d) => only.has(d.path)) : this.discover()
    if (only) {
      // Paths the watcher saw that discovery had not: new files.
      const known = new Set(found.map((d) => d.path))
      for (const p of only) {
        if (known.has(p)) continue
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
    const known = this.store.loadFiles()
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
    for (const d of found) {
      present.add(d.path)
      const pending = this.readOne(d, known.get(d.path), holders, stats)
      if (!pending) continue
      batch.push({...pending, base: known.get(d.path)})
      batchBytes += pending.row.size - (known.get(d.path)?.offset ?? 0)
      if (batch.length >= BATCH_FILES || batchBytes >= BATCH_BYTES) flush()
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

  /** Which files the adapters' agents hold open right now (Codex rollouts), path -> pid. */
  private openHandles(): Map<string, number> {
    const names = this.adapters.flatMap((a) => a.openFileProcesses ?? [])
    return names.length > 0 ? openFilesOf(names) : new Map()
  }

  private readOne(d: Discovered, prev: FileRow | undefined, holders: Map<string, number>, stats: SyncStats): Pending | null {
    let st: fs.Stats
    try {
      st = fs.statSync(d.path)
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

    const same = prev && prev.dev === st.dev && prev.ino === st.ino && prev.size === size && prev.mtimeMs === mtimeMs
    const holder = holders.get(d.path) ?? null
    if (same) {
      // Unchanged bytes; only the process holding it open may have changed.
      if (d.match.kind === 'jsonl' && d.adapter.openFileProcesses && prev.state) {
        const heldBefore = prev.state.includes('"__holder":')
        const state = JSON.parse(prev.state) as Record<string, unknown>
        const before = (state.__holder as number | undefined) ?? null
        if (heldBefore || holder !== null) {
          if (before === holder) return null
          const contributions = this.jsonlContributions(d, state, holder, before)
          const nextState = {...state, __holder: holder ?? undefined}
          return {contributions, row: {...prev, readAt: this.opts.clock(), state: JSON.stringify(nextState)}}
        }
      }

      return null
    }

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
      if (d.match.kind === 'jsonl') return this.readJsonl(d, prev, st, base, holder, stats)
      if (d.match.kind === 'whole') {
        const text = fs.readFileSync(d.path, 'utf8')
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

  private readJsonl(
    d: Discovered,
    prev: FileRow | undefined,
    st: fs.Stats,
    base: Omit<FileRow, 'offset' | 'parseErrors' | 'state'>,
    holder: number | null,
    stats: SyncStats,
  ): Pending {
    const parser = d.adapter.jsonl
    const match = d.match as FileMatch & {kind: 'jsonl'}
    if (!parser) return {contributions: [], row: {...base, offset: st.size, parseErrors: 0, state: null}}
    // Same file grown: resume. Replaced or shrunk: start over.
    let resume = prev && prev.dev === st.dev && prev.ino === st.ino && st.size >= prev.offset && prev.state !== null
    // A file rewritten in place (same inode, e.g. a migration to a new format) must not be resumed
    // mid-line: the bytes just before the stored offset must still be the ones read last time.
    if (resume && prev!.offset > 0) {
      const fp = (JSON.parse(prev!.state!) as {__fp?: string}).__fp
      if (fp !== undefined && fp !== tailPrint(d.path, prev!.offset)) resume = false
    }

    let state: Record<string, unknown>
    let offset: number
    let parseErrors: number
    if (resume && prev) {
      state = JSON.parse(prev.state!) as Record<string, unknown>
      offset = prev.offset
      parseErrors = prev.parseErrors
    } else {
      state = parser.init(d.path, match) as Record<string, unknown>
      offset = 0
      parseErrors = 0
    }

    const before = (state.__holder as number | undefined) ?? null
    delete state.__holder
    const fd = fs.openSync(d.path, 'r')
    try {
      const r = readLines(fd, offset, st.size, (text, at) => {
        stats.lines++
        let ok: boolean
        try {
          ok = parser.line(state, text, at)
        } catch {
          ok = false
        }

        if (!ok) {
          parseErrors++
          stats.parseErrors++
        }
      })
      stats.bytes += r.offset - offset
      parseErrors += r.oversize
      stats.parseErrors += r.oversize
      offset = r.offset
    } finally {
      fs.closeSync(fd)
    }

    delete state.__fp
    const contributions = this.jsonlContributions(d, state, holder, before)
    const fp = offset > 0 ? tailPrint(d.path, offset) : undefined
    const saved = {...state, __fp: fp, __holder: holder ?? undefined}
    return {contributions, row: {...base, offset, parseErrors, state: JSON.stringify(saved)}}
  }

  /** The parser's contributions, with a process claim when an agent process holds the file open. */
  private jsonlContributions(d: Discovered, state: Record<string, unknown>, holder: number | null, before: number | null): Contribution[] {
    const parser = d.adapter.jsonl!
    const clean = {...state}
    delete clean.__holder
    delete clean.__fp
    const match = d.match as FileMatch & {kind: 'jsonl'}
    const list = parser.contributions(clean, d.path, match)
    const pid = holder ?? before
    if (pid === null) return list
    return list.map((c, i) => {
      if (i !== 0 || c.processClaim) return c
      // The holder exited: a settled session simply ended; an unsettled one crashed mid-turn.
      if (holder === null && c.facts.settled !== false) return c
      return {
        ...c,
        processClaim: {
          heartbeatAt: null,
          pid,
          source: {kind: 'process', ref: `/proc/${pid}/fd`},
          startedAt: holder === null ? null : processStartTime(pid),
          status: null,
        },
      }
    })
  }

  /** Write one batch: files, contributions, recomposed sessions and their transitions. */
  private commit(batch: readonly Pending[]): {sessions: number; transitions: number} {
    this.claims = null
    return this.store.tx(() => {
      const affected = new Map<string, {agent: Agent; nativeId: string}>()
      for (const p of batch) {
        if (!this.stillCurrent(p)) continue
        if (p.deleted) {
          for (const a of this.store.deleteFile(p.row.path)) affected.set(`${a.agent}\0${a.nativeId}`, {agent: a.agent as Agent, nativeId: a.nativeId})
          continue
        }

        this.store.saveFile(p.row)
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
          ok = isSameProcessAlive(parsed.processClaim.pid, parsed.processClaim.startedAt)
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
        const own = contribs.filter((c) => !isScreenContribution(c))
        facts = adapter.compose ? adapter.compose(s.nativeId, own) : composeFacts(own)
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
      const nowAlive = isSameProcessAlive(parsed.processClaim.pid, parsed.processClaim.startedAt)
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

  /** Reconcile sessions whose answer may have changed with time alone (snooze end, TTLs). */
  tick(): number {
    // The same step `cast snooze sweep` takes: due snoozes are woken (their filing cleared), and
    // every other session whose time rules came due is re-checked.
    return sweepSnoozes(this.store, this.opts.clock()).transitions
  }
}

/** Up to 32 bytes just before `offset`, hex: where an incremental read resumes. */
function tailPrint(file: string, offset: number): string {
  const n = Math.min(32, offset)
  const buf = Buffer.alloc(n)
  const fd = fs.openSync(file, 'r')
  try {
    fs.readSync(fd, buf, 0, n, offset - n)
  } finally {
    fs.closeSync(fd)
  }

  return buf.toString('hex')
}

/**
 * Read complete lines from `start` to `end`. A partial last line is left for the next read: the
 * returned offset is where it starts. Lines over MAX_LINE are skipped and counted.
 */
export function readLines(
  fd: number,
  start: number,
  end: number,
  onLine: (text: string, offset: number) => void,
  maxLine = MAX_LINE,
): {offset: number; oversize: number} {
  const buf = Buffer.allocUnsafe(CHUNK)
  let pos = start
  let carry: Buffer | null = null
  let carryStart = start
  // Set while skipping an oversize line: where it started.
  let skipFrom: number | null = null
  let oversize = 0
  while (pos < end) {
    const n = fs.readSync(fd, buf, 0, Math.min(CHUNK, end - pos), pos)
    if (n <= 0) break
    let chunk: Buffer = buf.subarray(0, n)
    let base = pos
    if (carry) {
      chunk = Buffer.concat([carry, chunk])
      base = carryStart
      carry = null
    }

    pos += n
    let s = 0
    for (;;) {
      const nl = chunk.indexOf(10, s)
      if (nl === -1) break
      if (skipFrom === null) {
        let e = nl
        if (e > s && chunk[e - 1] === 13) e--
        if (e > s) onLine(chunk.toString('utf8', s, e), base + s)
      } else {
        oversize++
        skipFrom = null
      }

      s = nl + 1
    }

    if (s < chunk.length && skipFrom === null) {
      if (chunk.length - s > maxLine) {
        skipFrom = base + s
      } else {
        carry = Buffer.from(chunk.subarray(s))
        carryStart = base + s
      }
    }
  }

  // A partial last line (or an unfinished oversize one) waits for its newline.
  if (skipFrom !== null) return {offset: skipFrom, oversize}
  return {offset: carry ? carryStart : pos, oversize}
}
