/**
 * The files table (what cast read of each source, and where it stopped) and the contributions
 * table (what each source says about each session, composed into the session's facts).
 */
import {num, type Row, str} from './rows.js'
import type {Conn} from './conn.js'

export interface FileRow {
  readonly path: string
  readonly agent: string
  readonly kind: string
  readonly dev: number
  readonly ino: number
  readonly size: number
  readonly mtimeMs: number
  readonly offset: number
  /** The adapter's parser state (JSON), resumed on the next read; the reader's own marks are beside it. */
  readonly state: string | null
  readonly parseErrors: number
  readonly readAt: number
  /** The agent process that held the file open at the last read (the JSONL reader's mark), else null. */
  readonly holder: number | null
  /** The size at which a last line without its newline was tried and left (not tried again until the file changes), else null. */
  readonly tailTried: number | null
  /** The print of the bytes just before `offset` (file-read.ts tailPrint): a file rewritten in place is read again from the start. */
  readonly fp: string | null
}

export interface StoredContribution {
  readonly path: string
  readonly data: string
}

export function loadFiles(store: Conn): Map<string, FileRow> {
  const out = new Map<string, FileRow>()
  for (const r of store.q('SELECT * FROM files').all() as Row[]) {
    out.set(String(r.path), {
      agent: String(r.agent),
      dev: Number(r.dev),
      ino: Number(r.ino),
      kind: String(r.kind),
      mtimeMs: Number(r.mtime_ms),
      offset: Number(r.offset),
      parseErrors: Number(r.parse_errors),
      path: String(r.path),
      readAt: Number(r.read_at),
      size: Number(r.size),
      state: str(r.state),
      holder: num(r.holder),
      tailTried: num(r.tail_tried),
      fp: str(r.fp),
    })
  }

  return out
}

export function saveFile(store: Conn, f: FileRow): void {
  store
    .q(
      `INSERT INTO files (path, agent, kind, dev, ino, size, mtime_ms, offset, state, parse_errors, read_at, holder, tail_tried, fp)
     VALUES (@path, @agent, @kind, @dev, @ino, @size, @mtimeMs, @offset, @state, @parseErrors, @readAt, @holder, @tailTried, @fp)
     ON CONFLICT (path) DO UPDATE SET agent = excluded.agent, kind = excluded.kind, dev = excluded.dev,
       ino = excluded.ino, size = excluded.size, mtime_ms = excluded.mtime_ms, offset = excluded.offset,
       state = excluded.state, parse_errors = excluded.parse_errors, read_at = excluded.read_at,
       holder = excluded.holder, tail_tried = excluded.tail_tried, fp = excluded.fp`,
    )
    .run(f)
}

/** Forget a file that disappeared; returns the sessions it contributed to. */
export function deleteFile(store: Conn, path: string): {agent: string; nativeId: string}[] {
  const affected = (store.q('SELECT agent, native_id FROM contributions WHERE path = ?').all(path) as Row[]).map((r) => ({
    agent: String(r.agent),
    nativeId: String(r.native_id),
  }))
  store.q('DELETE FROM contributions WHERE path = ?').run(path)
  store.q('DELETE FROM files WHERE path = ?').run(path)
  return affected
}

/** Replace what one file says; returns every session whose contributions changed. */
export function replaceContributions(
  store: Conn,
  path: string,
  agent: string,
  contribs: readonly {nativeId: string; data: string}[],
): string[] {
  const old = new Map<string, string>()
  for (const r of store.q('SELECT native_id, data FROM contributions WHERE path = ?').all(path) as Row[]) {
    old.set(String(r.native_id), String(r.data))
  }

  const changed: string[] = []
  const seen = new Set<string>()
  for (const c of contribs) {
    seen.add(c.nativeId)
    if (old.get(c.nativeId) === c.data) continue
    store
      .q(
        `INSERT INTO contributions (path, agent, native_id, data) VALUES (?, ?, ?, ?)
       ON CONFLICT (path, native_id) DO UPDATE SET data = excluded.data, agent = excluded.agent`,
      )
      .run(path, agent, c.nativeId, c.data)
    changed.push(c.nativeId)
  }

  for (const id of old.keys()) {
    if (seen.has(id)) continue
    store.q('DELETE FROM contributions WHERE path = ? AND native_id = ?').run(path, id)
    changed.push(id)
  }

  return changed
}

/** Set what one source says about one session (hook state), creating the source row. */
export function upsertContribution(
  store: Conn,
  path: string,
  agent: string,
  kind: string,
  nativeId: string,
  data: string,
  now: number,
): void {
  store
    .q(
      `INSERT INTO files (path, agent, kind, dev, ino, size, mtime_ms, offset, state, parse_errors, read_at)
     VALUES (?, ?, ?, 0, 0, 0, 0, 0, NULL, 0, ?) ON CONFLICT (path) DO UPDATE SET read_at = excluded.read_at`,
    )
    .run(path, agent, kind, now)
  store
    .q(
      `INSERT INTO contributions (path, agent, native_id, data) VALUES (?, ?, ?, ?)
     ON CONFLICT (path, native_id) DO UPDATE SET data = excluded.data`,
    )
    .run(path, agent, nativeId, data)
}

export function getContribution(store: Conn, path: string, nativeId: string): string | null {
  return str((store.q('SELECT data FROM contributions WHERE path = ? AND native_id = ?').get(path, nativeId) as Row | undefined)?.data)
}

export function addParseErrors(store: Conn, path: string, n: number): void {
  store.q('UPDATE files SET parse_errors = parse_errors + ? WHERE path = ?').run(n, path)
}

export function contributionsFor(store: Conn, agent: string, nativeId: string): StoredContribution[] {
  return (store.q('SELECT path, data FROM contributions WHERE agent = ? AND native_id = ?').all(agent, nativeId) as Row[]).map((r) => ({
    data: String(r.data),
    path: String(r.path),
  }))
}

/**
 * Sessions whose contributions include a process claim (for the cheap liveness re-check every
 * sync does). The WHERE is the partial index contributions_claims's (migration 6), word for word,
 * so SQLite reads those few rows through it instead of scanning every contribution's data; a
 * false positive (the word inside a title) is dropped by the caller, which parses each row.
 */
export function sessionsWithProcessClaims(store: Conn): {agent: string; nativeId: string; data: string; path: string}[] {
  return (
    store
      .q(`SELECT agent, native_id, data, path FROM contributions INDEXED BY contributions_claims WHERE instr(data, '"processClaim"') > 0`)
      .all() as Row[]
  ).map((r) => ({agent: String(r.agent), data: String(r.data), nativeId: String(r.native_id), path: String(r.path)}))
}

export interface ClaimOnPid {
  readonly id: string
  readonly agent: string
  readonly nativeId: string
  readonly pid: number
  /** As the claim holds it (a number; null when it records none). */
  readonly startedAt: number | string | null
}

/**
 * The process claims on any of `pids` (sessionsWithProcessClaims narrowed in SQL), each with the
 * cast id of its session (claims of sessions the store does not hold are left out): the process
 * tree walk of `cast state` without reading every claim and every session id.
 */
export function claimsOnPids(store: Conn, pids: readonly number[]): ClaimOnPid[] {
  return (
    store
      .q(
        `SELECT s.id AS id, s.agent AS agent, s.native_id AS native_id, json_extract(c.data, '$.processClaim.pid') AS pid, json_extract(c.data, '$.processClaim.startedAt') AS started
           FROM contributions c INDEXED BY contributions_claims
           JOIN sessions s ON s.agent = c.agent AND s.native_id = c.native_id
          WHERE instr(c.data, '"processClaim"') > 0
            AND json_extract(c.data, '$.processClaim.pid') IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify(pids)) as Row[]
  ).map((r) => ({
    agent: String(r.agent),
    id: String(r.id),
    nativeId: String(r.native_id),
    pid: Number(r.pid),
    startedAt: r.started as number | string | null,
  }))
}

/** The files that describe one session, with their read position and parse errors. */
export function filesFor(store: Conn, agent: string, nativeId: string): FileRow[] {
  return (
    store
      .q(`SELECT f.* FROM files f JOIN contributions c ON c.path = f.path WHERE c.agent = ? AND c.native_id = ? ORDER BY f.path`)
      .all(agent, nativeId) as Row[]
  ).map((r) => ({
    agent: String(r.agent),
    dev: Number(r.dev),
    ino: Number(r.ino),
    kind: String(r.kind),
    mtimeMs: Number(r.mtime_ms),
    offset: Number(r.offset),
    parseErrors: Number(r.parse_errors),
    path: String(r.path),
    readAt: Number(r.read_at),
    size: Number(r.size),
    state: null,
    holder: num(r.holder),
    tailTried: num(r.tail_tried),
    fp: str(r.fp),
  }))
}

export function totalParseErrors(store: Conn): number {
  return Number((store.q('SELECT COALESCE(SUM(parse_errors), 0) AS n FROM files').get() as Row).n)
}

export function countFiles(store: Conn): number {
  return Number((store.q('SELECT COUNT(*) AS n FROM files').get() as Row).n)
}
