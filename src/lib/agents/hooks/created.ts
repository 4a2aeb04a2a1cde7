/**
 * Settings files (and their folders) that `cast hooks install` created, so `cast hooks uninstall`
 * can take them away again, with the backups cast made of them: uninstalling leaves no trace
 * beyond CAST_HOME. Kept in `$CAST_HOME/hooks-created.json` (a small file, like ssh's
 * known_hosts): `{"files": {"<file>": {"at": <ms>}}, "dirs": ["<folder cast created>", …]}`.
 */
import fs from 'node:fs'
import path from 'node:path'

import {castHome, type Env} from '../../home/env.js'
import {writeAtomic} from './files.js'

interface Record_ {
  readonly files: Record<string, {readonly at: number}>
  /** Folders that did not exist before cast wrote a file in them. */
  readonly dirs: readonly string[]
}

function recordPath(env: Env): string {
  return path.join(castHome(env), 'hooks-created.json')
}

function load(env: Env): Record_ {
  try {
    const raw = JSON.parse(fs.readFileSync(recordPath(env), 'utf8')) as Partial<Record_>
    const files = typeof raw.files === 'object' && raw.files !== null ? raw.files : {}
    return {dirs: Array.isArray(raw.dirs) ? raw.dirs.filter((d) => typeof d === 'string') : [], files}
  } catch {
    return {dirs: [], files: {}}
  }
}

function save(env: Env, r: Record_): void {
  if (Object.keys(r.files).length === 0 && r.dirs.length === 0) fs.rmSync(recordPath(env), {force: true})
  else writeAtomic(recordPath(env), JSON.stringify(r, null, 2) + '\n')
}

/** The folders on the way to `file` that do not exist yet (outermost first). */
export function missingDirs(file: string): string[] {
  const out: string[] = []
  for (let d = path.dirname(file); !fs.existsSync(d); d = path.dirname(d)) {
    out.unshift(d)
    if (path.dirname(d) === d) break
  }

  return out
}

/** Remember that cast created `file` (and `dirs`) at `at`. */
export function noteCreated(env: Env, file: string, at: number, dirs: readonly string[]): void {
  const r = load(env)
  save(env, {dirs: [...new Set([...r.dirs, ...dirs])], files: {...r.files, [file]: {at}}})
}

export function createdByCast(env: Env, file: string): boolean {
  return file in load(env).files
}

/**
 * Remove a file cast created, the backups cast made of it since (`<file>.cast-backup-<stamp>`),
 * and the folders cast created that are empty now. Returns the paths removed.
 */
export function removeCreated(env: Env, file: string): string[] {
  const r = load(env)
  const entry = r.files[file]
  if (!entry) return []
  const removed: string[] = [file]
  fs.rmSync(file, {force: true})
  const since = new Date(entry.at)
    .toISOString()
    .replaceAll(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
  const dir = path.dirname(file)
  const prefix = `${path.basename(file)}.cast-backup-`
  let names: string[] = []
  try {
    names = fs.readdirSync(dir)
  } catch {
    // the folder is gone already
  }

  for (const name of names) {
    if (!name.startsWith(prefix) || name.slice(prefix.length) < since) continue
    fs.rmSync(path.join(dir, name), {force: true})
    removed.push(path.join(dir, name))
  }

  // Deepest first; a folder that still holds something (the user's, another file of cast's) stays listed.
  const kept: string[] = []
  for (const d of [...r.dirs].sort((a, b) => b.length - a.length)) {
    try {
      fs.rmdirSync(d)
      removed.push(d)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') kept.push(d)
    }
  }

  const files = {...r.files}
  delete files[file]
  save(env, {dirs: kept, files})
  return removed
}
