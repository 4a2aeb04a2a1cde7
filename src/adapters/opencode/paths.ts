/**
 * Where OpenCode keeps its data (agent-formats §3.1) and which files cast reads.
 *
 *   <data>/opencode/opencode.db                       ≥ 1.2: SQLite (WAL); other channels
 *   <data>/opencode/opencode-<channel>.db                    use their own file
 *   <data>/opencode/storage/session/<projectID>/<sessionID>.json   < 1.2: one JSON file per
 *   <data>/opencode/storage/message/<sessionID>/<messageID>.json   object, rewritten whole
 *   <data>/opencode/storage/part/<messageID>/<partID>.json         whenever it changes
 *
 * <data> is $XDG_DATA_HOME, else <home>/.local/share (OpenCode uses the XDG layout on every
 * platform). Pure: paths only, no fs.
 */
import {basename, dirname, join, normalize, sep} from 'node:path'

import type {AdapterEnv, FileMatch} from '../../core/ingest/adapter.js'

function trimSep(path: string): string {
  let out = normalize(path)
  while (out.length > 1 && out.endsWith(sep)) out = out.slice(0, -1)
  return out
}

/** `$XDG_DATA_HOME/opencode`, else `<home>/.local/share/opencode`. */
export function opencodeDataDir(ctx: AdapterEnv): string {
  const xdg = ctx.env.XDG_DATA_HOME?.trim()
  // The XDG spec says a relative value is invalid and must be ignored.
  const base = xdg && xdg.startsWith('/') ? xdg : join(ctx.home, '.local', 'share')
  return trimSep(join(base, 'opencode'))
}

export function opencodeRoots(ctx: AdapterEnv): string[] {
  return [opencodeDataDir(ctx)]
}

const DB_NAME = /^opencode(?:-[A-Za-z0-9._-]+)?\.db$/
const JSON_NAME = /^([A-Za-z0-9_-]+)\.json$/
const STORAGE_KINDS = new Set(['session', 'message', 'part'])

export function matchOpencodeFile(path: string, ctx: AdapterEnv): FileMatch | null {
  const root = opencodeDataDir(ctx)
  const file = trimSep(path)
  if (!file.startsWith(root + sep)) return null
  const parts = file.slice(root.length + 1).split(sep)
  if (parts.length === 1) return DB_NAME.test(parts[0]!) ? {kind: 'sqlite', role: 'db'} : null
  if (parts.length !== 4 || parts[0] !== 'storage') return null
  const [, kind, folder, name] = parts as [string, string, string, string]
  const id = JSON_NAME.exec(name)?.[1]
  if (!id || !STORAGE_KINDS.has(kind)) return null
  if (kind === 'session') return {kind: 'whole', nativeId: id, role: 'session'}
  if (kind === 'message') return {kind: 'whole', nativeId: folder, role: 'message'}
  return {kind: 'whole', role: 'part'}
}

/**
 * Only storage/{session,message,part} hold sessions. Everything else under the data dir is
 * skipped: snapshot/ (git object stores), log/, bin/, tool-output/, and the other storage folders.
 */
export function skipOpencodeDir(path: string): boolean {
  const name = basename(path)
  const parent = basename(dirname(path))
  if (parent === 'opencode') return name !== 'storage'
  if (parent === 'storage') return !STORAGE_KINDS.has(name)
  return name === 'node_modules' || name === '.git'
}
