/** A full disk, told apart from other I/O errors (no SQLite here: base-command imports it on every run). */
import fs from 'node:fs'
import path from 'node:path'

/**
 * Is the disk that holds `dir` (or its nearest existing parent) out of space? SQLite reports a
 * full disk in several ways (SQLITE_FULL, and SQLITE_IOERR_SHMSIZE when it cannot grow the -shm
 * file on a full tmpfs): the free space says which it is.
 */
export function diskFull(dir: string): boolean {
  let d = dir
  for (;;) {
    try {
      const st = fs.statfsSync(d)
      return st.bavail * st.bsize < 256 * 1024
    } catch {
      const up = path.dirname(d)
      if (up === d) return false
      d = up
    }
  }
}

/** The one line for a store that cannot be written because the disk is full. */
export function noSpaceMessage(home: string, why: string): string {
  // SQLite's own name for it (SQLITE_IOERR_SHMSIZE, "disk I/O error") says nothing to a user.
  const said = /IOERR|I\/O error/i.test(why) ? 'the disk is full' : why
  return `No space left on the disk that holds the cast store ${home} (${said}): nothing was changed.`
}
