/**
 * Discovery: walk every adapter's roots and ask it which files matter, and how to read them.
 * Symlinks under a root are never followed; a root inside another root of the same adapter is
 * walked once.
 */
import fs from 'node:fs'
import path from 'node:path'

import type {Adapter, AdapterEnv, FileMatch} from './adapter.js'

export interface Discovered {
  readonly path: string
  readonly adapter: Adapter
  readonly match: FileMatch
}

/** Walk every root of every adapter; `progress` is called for every folder with entries. */
export function discoverFiles(adapters: readonly Adapter[], ctx: AdapterEnv, progress: (() => void) | null): Discovered[] {
  const out: Discovered[] = []
  const seen = new Set<string>()
  for (const adapter of adapters) {
    // A root inside another root of the same adapter is walked once, as part of the outer one.
    const roots = adapter.roots(ctx).map((r) => path.resolve(r))
    const outer = roots.filter((r) => !roots.some((o) => o !== r && r.startsWith(o + path.sep)))
    for (const root of new Set(outer)) walk({adapter, ctx, out, progress, seen}, root, 0)
  }

  return out
}

interface Walk {
  readonly adapter: Adapter
  readonly ctx: AdapterEnv
  readonly out: Discovered[]
  readonly seen: Set<string>
  readonly progress: (() => void) | null
}

function walk(w: Walk, dir: string, depth: number): void {
  if (depth > 12) return
  let entries: fs.Dirent[]
  try {
    entries = fs.readdirSync(dir, {withFileTypes: true})
  } catch {
    return
  }

  if (entries.length > 0) w.progress?.()
  for (const e of entries) {
    const p = path.join(dir, e.name)
    // Symlinks under a root are not followed (a loop, or a link to another root, would read a
    // file twice or without end): only real folders and regular files are walked.
    if (e.isDirectory()) {
      if (w.adapter.skipDir?.(p)) continue
      walk(w, p, depth + 1)
    } else if (e.isFile()) {
      const key = `${w.adapter.agent}\0${p}`
      if (w.seen.has(key)) continue
      w.seen.add(key)
      const match = w.adapter.match(p, w.ctx)
      if (match) w.out.push({adapter: w.adapter, match, path: p})
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
      if (!adapter.roots(ctx).some((r) => p === r || p.startsWith(r + path.sep))) continue
      const match = adapter.match(p, ctx)
      if (match) out.push({adapter, match, path: p})
    }
  }

  return out
}

function isSymlink(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink()
  } catch {
    return false
  }
}
