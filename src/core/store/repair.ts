/**
 * `cast doctor --repair`: a store whose integrity check fails is rebuilt. Everything that can
 * still be read of cast's own records (declarations, pins, owners, labels, decisions, schedules,
 * the transitions log, …) is copied row by row into a new store; what the agents' files say
 * (the files and contributions tables) is not copied but re-read from the agents' files by the
 * command afterwards. The damaged file is kept beside it as `cast.db.damaged-<stamp>`.
 */
import Database from 'better-sqlite3'
import fs from 'node:fs'
import path from 'node:path'

import {openDatabase} from './db.js'

/** Derived from the agents' files: re-read after the repair, never copied from a damaged store. */
const REREAD = new Set(['files', 'contributions', 'leases'])
const CHUNK = 200

export interface RepairReport {
  /** Rows copied per table. */
  readonly copied: Record<string, number>
  /** Rows (or row ranges) that could not be read, per table. */
  readonly unreadable: Record<string, number>
  /** Tables of the damaged store that could not be read at all. */
  readonly lostTables: string[]
  /** Where the damaged file was kept. */
  readonly damaged: string
}

/** PRAGMA integrity_check on the store file: 'ok' or the first problems (read-only, never throws). */
export function integrityOf(file: string): string {
  let db: Database.Database | null = null
  try {
    db = new Database(file, {fileMustExist: true, readonly: true})
    const rows = db.pragma('integrity_check(5)') as Record<string, unknown>[]
    const out = rows.map((r) => String(Object.values(r)[0])).join('; ')
    return out === '' ? 'ok' : out
  } catch (error) {
    return (error as Error).message
  } finally {
    db?.close()
  }
}

export function repairStore(home: string, now = Date.now()): RepairReport {
  const file = path.join(home, 'cast.db')
  const stamp = new Date(now)
    .toISOString()
    .replaceAll(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
  const work = path.join(home, `.repair-${process.pid}`)
  fs.rmSync(work, {force: true, recursive: true})
  fs.mkdirSync(work, {mode: 0o700})
  const copied: Record<string, number> = {}
  const unreadable: Record<string, number> = {}
  const lostTables: string[] = []
  let old: Database.Database | null = null
  try {
    old = new Database(file, {fileMustExist: true, readonly: true})
  } catch {
    old = null
  }

  const fresh = openDatabase(work)
  try {
    fresh.pragma('foreign_keys = OFF')
    const tables = (
      fresh.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all() as {name: string}[]
    ).map((r) => r.name)
    fresh.transaction(() => {
      for (const t of tables) {
        if (REREAD.has(t)) continue
        if (!old) {
          lostTables.push(t)
          continue
        }

        const r = copyTable(old, fresh, t)
        if (r === null) lostTables.push(t)
        else {
          copied[t] = r.copied
          if (r.unreadable > 0) unreadable[t] = r.unreadable
        }
      }

      // Rows whose parent row was lost (a record of a session row that could not be read) go too.
      for (const v of fresh.pragma('foreign_key_check') as {table: string; rowid: number}[]) {
        fresh.prepare(`DELETE FROM "${v.table}" WHERE rowid = ?`).run(v.rowid)
        copied[v.table] = (copied[v.table] ?? 1) - 1
        unreadable[v.table] = (unreadable[v.table] ?? 0) + 1
      }

      // The sessions' states are recomputed by the re-index: make every session due for it.
      if (tables.includes('sessions')) fresh.prepare('UPDATE sessions SET next_check_at = 0').run()
    })()
    fresh.pragma('wal_checkpoint(TRUNCATE)')
  } finally {
    fresh.close()
    old?.close()
  }

  const damaged = `${file}.damaged-${stamp}`
  for (const suffix of ['', '-wal', '-shm']) {
    if (fs.existsSync(file + suffix)) fs.renameSync(file + suffix, damaged + suffix)
  }

  for (const suffix of ['', '-wal', '-shm']) {
    const from = path.join(work, 'cast.db' + suffix)
    if (fs.existsSync(from)) fs.renameSync(from, file + suffix)
  }

  fs.rmSync(work, {force: true, recursive: true})
  return {copied, damaged, lostTables, unreadable}
}

/** Copy what can be read of one table (columns both schemas have); null when nothing can be read. */
function copyTable(old: Database.Database, fresh: Database.Database, table: string): {copied: number; unreadable: number} | null {
  let cols: string[]
  try {
    const have = new Set((old.prepare(`PRAGMA table_info("${table}")`).all() as {name: string}[]).map((c) => c.name))
    cols = (fresh.prepare(`PRAGMA table_info("${table}")`).all() as {name: string}[]).map((c) => c.name).filter((c) => have.has(c))
  } catch {
    return null
  }

  if (cols.length === 0) return null
  const list = cols.map((c) => `"${c}"`).join(', ')
  const insert = fresh.prepare(`INSERT OR IGNORE INTO "${table}" (${list}) VALUES (${cols.map(() => '?').join(', ')})`)
  let copied = 0
  let unreadable = 0
  const put = (rows: Record<string, unknown>[]): void => {
    for (const row of rows) {
      try {
        copied += insert.run(...cols.map((c) => row[c] as never)).changes
      } catch {
        unreadable++
      }
    }
  }

  // The fast way first; on a damaged page, rowid ranges, then single rows inside a failing range.
  try {
    put(old.prepare(`SELECT ${list} FROM "${table}"`).all() as Record<string, unknown>[])
    return {copied, unreadable}
  } catch {
    copied = 0
  }

  let max = 0
  try {
    max = Number((old.prepare(`SELECT max(rowid) AS m FROM "${table}"`).get() as {m: number | null}).m ?? 0)
  } catch {
    max = 100_000
  }

  const range = old.prepare(`SELECT ${list} FROM "${table}" WHERE rowid BETWEEN ? AND ?`)
  const one = old.prepare(`SELECT ${list} FROM "${table}" WHERE rowid = ?`)
  for (let lo = 1; lo <= max; lo += CHUNK) {
    try {
      put(range.all(lo, lo + CHUNK - 1) as Record<string, unknown>[])
    } catch {
      for (let id = lo; id < lo + CHUNK && id <= max; id++) {
        try {
          const row = one.get(id) as Record<string, unknown> | undefined
          if (row) put([row])
        } catch {
          unreadable++
        }
      }
    }
  }

  return {copied, unreadable}
}
