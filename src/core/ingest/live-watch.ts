/**
 * The live ingester's file watching: the chokidar watcher over the roots and the spool, and the
 * stat signature the trailing re-stat compares.
 */
import fs from 'node:fs'

import type {FSWatcher} from 'chokidar'

/** A watcher over `dirs`: no initial events, symlinks not followed, blob folders ignored. */
export async function openWatcher(dirs: string[]): Promise<FSWatcher> {
  const {watch} = await import('chokidar')
  return watch(dirs, {
    awaitWriteFinish: false,
    // A symlink under a root is not followed: a loop cannot grow the watcher (nor the daemon).
    followSymlinks: false,
    ignoreInitial: true,
    ignored: (p: string) => /[\\/](tool-results|file-history|node_modules|\.git)([\\/]|$)/.test(p),
    persistent: true,
  })
}

/** What a stat says about a file (and a SQLite source's -wal): changes with any write. */
export function signature(p: string): string {
  const one = (f: string): string => {
    try {
      const st = fs.lstatSync(f)
      return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`
    } catch {
      return '-'
    }
  }

  return `${one(p)}|${one(p + '-wal')}`
}
