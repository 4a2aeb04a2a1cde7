import Database from 'better-sqlite3'
import fs from 'node:fs'
import path from 'node:path'

import {diskFull, noSpaceMessage} from './disk.js'
import {migrate} from './migrations.js'

export class StoreOpenError extends Error {
  override name = 'StoreOpenError'
}

/** CAST_HOME (or its spool) is not safe to use: someone else owns it, or others may write to it. Exit 5 (refused). */
export class UntrustedHomeError extends Error {
  override name = 'UntrustedHomeError'
  readonly exit = 5
}

/**
 * Why CAST_HOME or its spool must not be used, or null: each must be a folder the user owns that
 * neither group nor others can write to (anyone who can write there could plant hook events or a
 * store that cast would act on).
 */
export function untrustedHome(home: string): string | null {
  const uid = process.getuid?.()
  for (const [dir, what] of [
    [home, 'CAST_HOME'],
    [path.join(home, 'spool'), 'the hook spool'],
  ] as const) {
    let st: fs.Stats
    try {
      st = fs.statSync(dir)
    } catch {
      continue
    }

    if (!st.isDirectory()) return `${what} ${dir} is not a folder`
    if (uid !== undefined && st.uid !== uid) return `${what} ${dir} is owned by uid ${st.uid}, not by you (uid ${uid}): refusing to use it`
    if ((st.mode & 0o022) !== 0) {
      const who = (st.mode & 0o002) !== 0 ? 'anyone' : 'its group'
      return `${what} ${dir} can be written by ${who} (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}): refusing to use it; run chmod 700 ${dir}`
    }
  }

  return null
}

/** Create CAST_HOME with mode 0700 (and tighten it if it exists with looser bits). */
export function ensureHome(home: string): void {
  // Everything cast writes is private: the folder 0700, each file created 0600 by its writer.
  // Not through process.umask(): agents cast starts (headless runs, a tmux server) inherit the
  // umask, and their own files would turn 0600 too.
  const why = untrustedHome(home)
  if (why) throw new UntrustedHomeError(why)
  try {
    fs.mkdirSync(home, {mode: 0o700, recursive: true})
    const st = fs.statSync(home)
    if ((st.mode & 0o077) !== 0 && st.uid === process.getuid?.()) fs.chmodSync(home, 0o700)
  } catch (error) {
    const e = error as NodeJS.ErrnoException
    throw new StoreOpenError(`Cannot use CAST_HOME ${home}: ${e.code ?? ''} ${e.message}`.trim())
  }
}

/** Can this process create files in `dir` (a read-only mount, or mode bits, say no)? */
export function folderWritable(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK)
    return true
  } catch (error) {
    return !['EROFS', 'EACCES', 'EPERM'].includes((error as NodeJS.ErrnoException).code ?? '')
  }
}

let urisOn = false

/**
 * Construct a database with URI filenames on: better-sqlite3 reads SQLITE_USE_URI once, when its
 * addon loads with the first database of the process (the store's, in cast), and the variable is
 * put back at once so no child process inherits it. cast's own paths are absolute: never a URI.
 */
function withUris(open: () => Database.Database): Database.Database {
  if (urisOn) return open()
  const before = process.env.SQLITE_USE_URI
  process.env.SQLITE_USE_URI = '1'
  try {
    return open()
  } finally {
    urisOn = true
    if (before === undefined) delete process.env.SQLITE_USE_URI
    else process.env.SQLITE_USE_URI = before
  }
}

/**
 * The store in a folder nobody can write to, read as it is: SQLite cannot create the WAL's `-shm`
 * there, so the file is opened `immutable` (a URI).
 */
function openImmutable(file: string): Database.Database {
  return new Database(`file:${encodeURI(file)}?immutable=1`, {fileMustExist: true, readonly: true})
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
    db = withUris(() =>
      // Without a -shm (a cleanly closed store) SQLite cannot read WAL here at all: immutable. With one, as usual.
      options.readonly && !folderWritable(home) && !fs.existsSync(`${file}-shm`)
        ? openImmutable(file)
        : new Database(file, {fileMustExist: options.readonly === true, readonly: options.readonly === true, timeout: 15_000}),
    )
  } catch (error) {
    if (diskFull(home)) throw new StoreOpenError(noSpaceMessage(home, (error as Error).message))
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
    if (/^SQLITE_(FULL|IOERR)/.test(e.code ?? '') && diskFull(home))
      throw new StoreOpenError(noSpaceMessage(home, `${e.code}: ${e.message}`))
    throw new StoreOpenError(`Cannot use the cast store ${file}: ${e.code ? e.code + ': ' : ''}${e.message}`)
  }

  return db
}
