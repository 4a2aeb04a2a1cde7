/**
 * Reading the files that are not append-only: small files rewritten whole (registries, indexes,
 * JSON sessions) and the agents' SQLite databases, re-read on change. A file caught mid-rewrite
 * or a locked database is counted as a parse error and keeps what it said before: its row is not
 * updated, so the next pass reads it again.
 */
import Database from 'better-sqlite3'
import fs from 'node:fs'

import type {FileRow} from '../store/store.js'
import type {Contribution, ReadonlyDb} from './adapter.js'
import type {Discovered} from './discover.js'
import {readRegularFile} from './file-read.js'
import type {ReadCounts} from './jsonl-read.js'

/** What a read of one file yields: its new files row and contributions (null: forget them). */
export interface FileRead {
  readonly row: FileRow
  readonly contributions: readonly Contribution[] | null
}

/** A whole file's or a database's size and mtime, the database's WAL included. */
function markOf(d: Discovered, st: fs.Stats): {mtimeMs: number; size: number} {
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

  return {mtimeMs, size}
}

/** Read a whole file or a database when it changed since `prev` (null: unchanged, gone, or unreadable). */
export function readWholeFile(d: Discovered, prev: FileRow | undefined, now: number, counts: ReadCounts, pre?: fs.Stats): FileRead | null {
  let st: fs.Stats
  try {
    st = pre ?? fs.statSync(d.path)
  } catch {
    return null
  }

  if (!st.isFile()) return null
  const {mtimeMs, size} = markOf(d, st)
  if (prev && prev.dev === st.dev && prev.ino === st.ino && prev.size === size && prev.mtimeMs === mtimeMs) return null
  const row: FileRow = {
    agent: d.adapter.agent,
    dev: st.dev,
    ino: st.ino,
    kind: d.match.kind,
    mtimeMs,
    offset: st.size,
    parseErrors: 0,
    path: d.path,
    readAt: now,
    size,
    state: null,
    holder: null,
    tailTried: null,
    fp: null,
  }
  counts.read++
  try {
    if (d.match.kind === 'whole') {
      const text = readRegularFile(d.path)
      if (text === null) return null
      counts.bytes += st.size
      try {
        return {contributions: d.adapter.parseWhole?.(d.path, text, d.match) ?? [], row}
      } catch {
        // A file caught mid-rewrite: counted in this pass; what it said before stands, and the
        // next pass reads it again (its row is not updated, so it still looks changed).
        counts.parseErrors++
        return null
      }
    }

    // SQLite: opened read-only; a locked or half-written database keeps what it said before and
    // is tried again on the next pass.
    try {
      return {contributions: readSqlite(d), row}
    } catch {
      counts.parseErrors++
      return null
    }
  } catch {
    return null
  }
}

function readSqlite(d: Discovered): Contribution[] {
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
