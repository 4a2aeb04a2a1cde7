/**
 * Where OpenCode keeps its data (docs/agents/opencode.md) and which files cast reads.
 *
 *   <data>/opencode/opencode.db                       ≥ 1.2: SQLite (WAL); other channels
 *   <data>/opencode/opencode-<channel>.db                    use their own file
 *   <data>/opencode/storage/session/<projectID>/<sessionID>.json   < 1.2: one JSON file per
 *   <data>/opencode/storage/message/<sessionID>/<messageID>.json   object, rewritten whole
 *   <data>/opencode/storage/part/<messageID>/<partID>.json         whenever it changes
 *   <data>/opencode/log/opencode.log                  1.18: every process appends to it (log.ts)
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
/** 1.18.33 writes `log/opencode.log` (older releases one `log/<ISO time>.log` per process, in another line format: not read). */
const LOG_NAME = /^opencode\.log$/

export function matchOpencodeFile(path: string, ctx: AdapterEnv): FileMatch | null {
  const root = opencodeDataDir(ctx)
  const file = trimSep(path)
  if (!file.startsWith(root + sep)) return null
  const parts = file.slice(root.length + 1).split(sep)
  if (parts.length === 1) return DB_NAME.test(parts[0]!) ? {kind: 'sqlite', role: 'db'} : null
  // The log names many sessions: no nativeId of its own (its parser names them per line).
  if (parts.length === 2 && parts[0] === 'log') return LOG_NAME.test(parts[1]!) ? {kind: 'jsonl', nativeId: '', role: 'log'} : null
  if (parts.length !== 4 || parts[0] !== 'storage') return null
  const [, kind, folder, name] = parts as [string, string, string, string]
  const id = JSON_NAME.exec(name)?.[1]
  if (!id || !STORAGE_KINDS.has(kind)) return null
  if (kind === 'session') return {kind: 'whole', nativeId: id, role: 'session'}
  if (kind === 'message') return {kind: 'whole', nativeId: folder, role: 'message'}
  return {kind: 'whole', role: 'part'}
}

/**
 * Only storage/{session,message,part} hold sessions, and log/ holds pending permissions.
 * Everything else under the data dir is skipped: snapshot/ (git object stores), bin/,
 * tool-output/, repos/, and the other storage folders.
 */
export function skipOpencodeDir(path: string): boolean {
  const name = basename(path)
  const parent = basename(dirname(path))
  if (parent === 'opencode') return name !== 'storage' && name !== 'log'
  if (parent === 'storage') return !STORAGE_KINDS.has(name)
  return name === 'node_modules' || name === '.git'
}
