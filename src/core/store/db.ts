import Database from 'better-sqlite3'
import fs from 'node:fs'
import path from 'node:path'

import {migrate} from './migrations.js'

export class StoreOpenError extends Error {
  override name = 'StoreOpenError'
}

/** Create CAST_HOME with mode 0700 (and tighten it if it exists with looser bits). */
export function ensureHome(home: string): void {
  // Everything cast writes is private: the folder 0700, each file created 0600 by its writer.
  // Not through process.umask(): agents cast starts (headless runs, a tmux server) inherit the
  // umask, and their own files would turn 0600 too.
  try {
    fs.mkdirSync(home, {mode: 0o700, recursive: true})
    const st = fs.statSync(home)
    if ((st.mode & 0o077) !== 0 && st.uid === process.getuid?.()) fs.chmodSync(home, 0o700)
  } catch (error) {
    const e = error as NodeJS.ErrnoException
    throw new StoreOpenError(`Cannot use CAST_HOME ${home}: ${e.code ?? ''} ${e.message}`.trim())
  }
}

/** Open (and migrate) the store at `<home>/cast.db`: WAL, busy_timeout, foreign keys. */
export function openDatabase(home: string, options: {readonly?: boolean} = {}): Database.Database {
  ensureHome(home)
  const file = path.join(home, 'cast.db')
  let db: Database.Database
  if (!options.readonly) {
    // Created 0600 before SQLite opens it: SQLite gives -wal and -shm the database file's mode.
    try {
      fs.closeSync(fs.openSync(file, 'a', 0o600))
    } catch {
      // the open below says what is wrong
    }
  }

  try {
    db = new Database(file, {fileMustExist: options.readonly === true, readonly: options.readonly === true, timeout: 15_000})
  } catch (error) {
    throw new StoreOpenError(`Cannot open the cast store ${file}: ${(error as Error).message}`)
  }

  try {
    db.pragma('busy_timeout = 15000')
    if (!options.readonly) {
      const mode = db.pragma('journal_mode = WAL', {simple: true})
      if (mode !== 'wal') db.pragma('journal_mode = WAL')
      db.pragma('synchronous = NORMAL')
    }

    db.pragma('foreign_keys = ON')
    if (!options.readonly) migrate(db)
    for (const f of [file, `${file}-wal`, `${file}-shm`]) {
      try {
        const st = fs.statSync(f)
        if ((st.mode & 0o077) !== 0) fs.chmodSync(f, 0o600)
      } catch {
        // not created yet
      }
    }
  } catch (error) {
    db.close()
    if ((error as Error).name === 'SchemaFromFutureError') throw error
    const e = error as Error & {code?: string}
    throw new StoreOpenError(`Cannot use the cast store ${file}: ${e.code ? e.code + ': ' : ''}${e.message}`)
  }

  return db
}
