/**
 * Where Cursor's agent CLI keeps its chats (docs/agents.md) and which files cast reads.
 *
 *   ~/.cursor/chats/<md5(cwd)>/<chatId>/store.db    SQLite (WAL): `meta` (hex-encoded JSON) and `blobs`
 *   ~/.cursor/chats/<md5(cwd)>/<chatId>/meta.json   newer sidecar: title, cwd, createdAtMs, updatedAtMs, isSubagent
 *
 * Pure: paths only.
 */
import {createHash} from 'node:crypto'
import {basename, join, normalize, sep} from 'node:path'

import type {AdapterEnv, FileMatch} from '../../core/ingest/adapter.js'

export function cursorHome(ctx: AdapterEnv): string {
  return join(ctx.home, '.cursor')
}

export function chatsDir(ctx: AdapterEnv): string {
  return join(cursorHome(ctx), 'chats')
}

export function cursorRoots(ctx: AdapterEnv): string[] {
  return [chatsDir(ctx)]
}

/** The folder name Cursor files a project's chats under: md5 of its absolute path, hex. */
export function cwdBucket(cwd: string): string {
  return createHash('md5').update(cwd).digest('hex')
}

const ID = /^[0-9A-Za-z][0-9A-Za-z_-]*$/

export function matchCursorFile(path: string, ctx: AdapterEnv): FileMatch | null {
  const root = chatsDir(ctx) + sep
  const full = normalize(path)
  if (!full.startsWith(root)) return null
  const parts = full.slice(root.length).split(sep)
  if (parts.length !== 3) return null
  const id = parts[1] ?? ''
  if (!ID.test(id)) return null
  if (parts[2] === 'store.db') return {kind: 'sqlite', nativeId: id, role: 'store'}
  if (parts[2] === 'meta.json') return {kind: 'whole', nativeId: id, role: 'meta'}
  return null
}

export function skipCursorDir(path: string): boolean {
  return basename(path) === 'node_modules'
}
