/**
 * The live ingester's file watching: the chokidar watcher over the roots and the spool, and the
 * stat signature the trailing re-stat compares.
 */
import fs from 'node:fs'

import type {FSWatcher} from 'chokidar'

/** Folders the watcher never descends into (and a new-folder rescan skips). */
const IGNORED = /[\\/](tool-results|file-history|node_modules|\.git)([\\/]|$)/

/** A watcher over `dirs`: no initial events, symlinks not followed, blob folders ignored. */
export async function openWatcher(dirs: string[]): Promise<FSWatcher> {
  const {watch} = await import('chokidar')
  return watch(dirs, {
    awaitWriteFinish: false,
    // A symlink under a root is not followed: a loop cannot grow the watcher (nor the daemon).
    followSymlinks: false,
    ignoreInitial: true,
    ignored: (p: string) => IGNORED.test(p),
    persistent: true,
  })
}

/** How long a folder that appeared is looked at again by NewDirs. */
export const NEW_DIR_WINDOW_MS = 10_000

/**
 * Folders that appeared under the roots while watching, looked at again for NEW_DIR_WINDOW_MS:
 * a file written into a folder right after the folder was made can land before the watch on
 * the new folder is set up, and its event is lost (seen once in 30 under load). The live
 * ingester asks scan() on each stat sweep; it lists the folder (bounded) and returns the files
 * that are new or changed since its last look.
 */
export class NewDirs {
  private readonly dirs = new Map<string, number>()
  private readonly seen = new Map<string, string>()
  private truncated = false

  /** `rescan`: called shortly after a folder is added (and the stat sweep calls it too). */
  constructor(private readonly rescan: () => void = () => {}) {}

  /** A folder appeared (one under `skip`, the spool, does not count). */
  add(dir: string, now: number, skip: ReadonlySet<string> = new Set()): void {
    if (IGNORED.test(dir) || [...skip].some((x) => dir === x || dir.startsWith(x + '/'))) return
    if (!this.dirs.has(dir)) this.dirs.set(dir, now)
    setTimeout(() => this.rescan(), 250).unref()
  }

  /** Files under the new folders that are new or changed since the last scan; forgets folders older than the window. */
  scan(now: number): string[] {
    const out: string[] = []
    if (this.dirs.size === 0) return out
    for (const [dir, at] of this.dirs) {
      if (now - at > NEW_DIR_WINDOW_MS) {
        this.dirs.delete(dir)
        for (const f of this.seen.keys()) if (f.startsWith(dir + '/')) this.seen.delete(f)
        continue
      }

      const files = listFiles(dir, 3, LIST_MAX)
      if (files.length >= LIST_MAX) this.truncated = true
      for (const f of files) {
        const sig = signature(f)
        if (this.seen.get(f) === sig) continue
        this.seen.set(f, sig)
        out.push(f)
      }
    }

    return out
  }

  /** A scan since the last call met a folder with more files than it lists (LIST_MAX): read everything instead. */
  takeTruncated(): boolean {
    const t = this.truncated
    this.truncated = false
    return t
  }
}

/** The most files NewDirs lists under one folder. */
const LIST_MAX = 500

/** Regular files under `dir`, `depth` folders deep at most, `max` at most; symlinks not followed. */
function listFiles(dir: string, depth: number, max: number): string[] {
  const out: string[] = []
  const walk = (d: string, left: number): void => {
    let entries: fs.Dirent[]
    try {
      entries = fs.readdirSync(d, {withFileTypes: true})
    } catch {
      return
    }

    for (const e of entries) {
      if (out.length >= max) return
      const p = `${d}/${e.name}`
      if (IGNORED.test(p)) continue
      if (e.isFile()) out.push(p)
      else if (e.isDirectory() && left > 0) walk(p, left - 1)
    }
  }

  walk(dir, depth)
  return out
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

/**
 * The trailing re-stat after a burst: the paths a pass read, with their stat signature from before
 * the read, stat'ed again `afterMs` later (and once more three times later when nothing moved, as a
 * loaded machine may deliver the write after the first look); the ones that changed go to `reread`.
 */
export class TrailingRestat {
  private readonly sigs = new Map<string, string>()
  private timer: NodeJS.Timeout | null = null
  private round = 0

  constructor(
    private readonly afterMs: number,
    private readonly reread: (paths: string[]) => void,
  ) {}

  /** `p` is about to be read. */
  note(p: string): void {
    this.sigs.set(p, signature(p))
  }

  /** A pass ended: look again later. */
  arm(): void {
    if (this.sigs.size === 0) return
    this.round = 0
    if (this.timer) clearTimeout(this.timer)
    this.timer = setTimeout(() => this.look(), this.afterMs)
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }

  private look(): void {
    this.timer = null
    const again: string[] = []
    for (const [p, sig] of this.sigs) if (signature(p) !== sig) again.push(p)
    if (again.length === 0 && this.round === 0) {
      this.round = 1
      this.timer = setTimeout(() => this.look(), this.afterMs * 3)
      return
    }

    this.round = 0
    this.sigs.clear()
    if (again.length > 0) this.reread(again)
  }
}

/** How often the live ingester's folder sweep looks at the folders under the roots. */
export const FOLDER_SWEEP_MS = 10_000
/** How deep under a root the folder sweep looks (project folders, dated folders, chat folders). */
const FOLDER_DEPTH = 4
/** The most folders the sweep keeps (a home bigger than this is swept in its first folders only). */
const FOLDER_MAX = 20_000

/**
 * The folders under the roots with their modification times. A folder's time moves when an entry
 * is made, removed or renamed in it, so a folder whose time moved since the last look holds a
 * file (or folder) the watcher may never have reported: when the kernel's inotify queue overflows
 * (the daemon starved while other files take many writes) the events past the queue's size are
 * dropped, and a new project folder's is one of them; nothing in Node reports the overflow. Each
 * sweep costs one lstat per folder; the live ingester runs it every FOLDER_SWEEP_MS and hands
 * what moved to NewDirs (its files read) and the watcher (watched from then on).
 */
export class FolderSweep {
  private readonly folders = new Map<string, {mtimeMs: number; depth: number}>()

  constructor(roots: readonly string[]) {
    for (const r of roots) this.learn(r, FOLDER_DEPTH, [])
  }

  /** Folders whose listing changed since the last look, and the folders new to the sweep (none once `stopped`). */
  sweep(stopped = false): string[] {
    const out: string[] = []
    if (stopped) return out
    for (const [dir, known] of [...this.folders]) {
      let mtimeMs: number
      try {
        const st = fs.lstatSync(dir)
        if (!st.isDirectory()) throw new Error('not a folder')
        mtimeMs = st.mtimeMs
      } catch {
        this.folders.delete(dir)
        continue
      }

      if (mtimeMs === known.mtimeMs) continue
      known.mtimeMs = mtimeMs
      out.push(dir)
      if (known.depth > 0) for (const sub of subfolders(dir)) if (!this.folders.has(sub)) this.learn(sub, known.depth - 1, out)
    }

    return out
  }

  /** Record `dir` and its folders `depth` deep; the ones recorded are added to `found`. */
  private learn(dir: string, depth: number, found: string[]): void {
    if (this.folders.size >= FOLDER_MAX || IGNORED.test(dir)) return
    let mtimeMs: number
    try {
      const st = fs.lstatSync(dir)
      if (!st.isDirectory()) return
      mtimeMs = st.mtimeMs
    } catch {
      return
    }

    this.folders.set(dir, {depth, mtimeMs})
    found.push(dir)
    if (depth > 0) for (const sub of subfolders(dir)) this.learn(sub, depth - 1, found)
  }
}

/** The folders directly in `dir` (symlinks not followed, blob folders left out). */
function subfolders(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, {withFileTypes: true})
      .filter((e) => e.isDirectory())
      .map((e) => `${dir}/${e.name}`)
      .filter((p) => !IGNORED.test(p))
  } catch {
    return []
  }
}
