/**
 * Discovery: walk every adapter's roots and ask it which files matter, and how to read them.
 * Symlinks under a root are never followed; a root inside another root of the same adapter is
 * walked once.
 */
import fs from 'node:fs'
import path from 'node:path'

import type {Adapter, AdapterEnv, AdapterRules, FileMatch} from './adapter.js'

/** A file a walk matched, and the adapter (or only its path rules: AdapterRules) that matched it. */
export interface Discovered<A extends AdapterRules = Adapter> {
  readonly path: string
  readonly adapter: A
  readonly match: FileMatch
}

/**
 * Walk every root of every adapter; `progress` is called for every folder with entries. A no-op
 * `cast sessions` walks every file of the history (it should cost little more than the
 * stats), so the walk allocates only the matches: no per-file key, no path normalisation (a root
 * is resolved once, and an entry's name holds no separator).
 */
export function discoverFiles(adapters: readonly Adapter[], ctx: AdapterEnv, progress: (() => void) | null): Discovered[] {
  const out: Discovered[] = []
  walkFiles(adapters, ctx, progress, (adapter, p, match) => {
    out.push({adapter, match, path: p})
  })
  return out
}

/**
 * The same walk, handing each matched file to `found` as it is reached and keeping nothing
 * itself (a full pass compares each file's stat as it goes: stat-pass.ts).
 */
export function walkFiles<A extends AdapterRules>(
  adapters: readonly A[],
  ctx: AdapterEnv,
  progress: (() => void) | null,
  found: (adapter: A, path: string, match: FileMatch) => void,
): void {
  for (const adapter of adapters) {
    // A root inside another root of the same adapter is walked once, as part of the outer one;
    // symlinks are never followed, so no file is reached twice through one adapter's roots.
    const roots = adapter.roots(ctx).map((r) => path.resolve(r))
    const outer = roots.filter((r) => !roots.some((o) => o !== r && r.startsWith(o + path.sep)))
    for (const root of new Set(outer)) walk({adapter, ctx, found, progress}, root, 0)
  }
}

interface Walk<A extends AdapterRules> {
  readonly adapter: A
  readonly ctx: AdapterEnv
  readonly found: (adapter: A, path: string, match: FileMatch) => void
  readonly progress: (() => void) | null
}

function walk<A extends AdapterRules>(w: Walk<A>, dir: string, depth: number): void {
  if (depth > 12) return
  let entries: fs.Dirent[]
  try {
    entries = fs.readdirSync(dir, {withFileTypes: true})
  } catch {
    return
  }

  if (entries.length > 0) w.progress?.()
  // `dir` is resolved (normalised), so joining a name is a concatenation.
  const prefix = dir.endsWith(path.sep) ? dir : dir + path.sep
  for (const e of entries) {
    // Symlinks under a root are not followed (a loop, or a link to another root, would read a
    // file twice or without end): only real folders and regular files are walked.
    if (e.isFile()) {
      const p = prefix + e.name
      const match = w.adapter.match(p, w.ctx)
      if (match) w.found(w.adapter, p, match)
    } else if (e.isDirectory()) {
      const p = prefix + e.name
      if (w.adapter.skipDir?.(p)) continue
      walk(w, p, depth + 1)
    }
  }
}

/** Paths the watcher saw that discovery had not (new files), matched by the adapters whose roots hold them. */
export function discoverPaths(
  adapters: readonly Adapter[],
  ctx: AdapterEnv,
  paths: Iterable<string>,
  known: ReadonlySet<string>,
): Discovered[] {
  const out: Discovered[] = []
  for (const p of paths) {
    if (known.has(p) || isSymlink(p)) continue
    for (const adapter of adapters) {
      const root = adapter.roots(ctx).find((r) => p === r || p.startsWith(r + path.sep))
      if (root === undefined || underSkipped(adapter, root, p)) continue
      const match = adapter.match(p, ctx)
      if (match) out.push({adapter, match, path: p})
    }
  }

  return out
}

/** Is `file` inside a folder under `root` that the walk does not enter (Adapter.skipDir)? */
function underSkipped(adapter: Adapter, root: string, file: string): boolean {
  if (!adapter.skipDir) return false
  for (let dir = path.dirname(file); dir.length > root.length && dir.startsWith(root + path.sep); dir = path.dirname(dir))
    if (adapter.skipDir(dir)) return true
  return false
}

function isSymlink(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink()
  } catch {
    return false
  }
}
