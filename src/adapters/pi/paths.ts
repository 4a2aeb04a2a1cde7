/**
 * Where pi keeps its sessions (docs/agents/pi.md) and which files cast reads.
 *
 *   <agentDir>/sessions/--<cwd with / \ : turned into ->--/<ISO ts>_<sessionId>.jsonl
 *
 * <agentDir> is $PI_CODING_AGENT_DIR, else <home>/.pi/agent. A file directly in sessions/ is read
 * too (a flat `--session-dir` pointed there). Pure: paths only, no fs.
 */
import {basename, join, normalize, sep} from 'node:path'

import type {AdapterEnv, FileMatch} from '../../core/ingest/adapter.js'

function trimSep(path: string): string {
  let out = normalize(path)
  while (out.length > 1 && out.endsWith(sep)) out = out.slice(0, -1)
  return out
}

export function agentDir(ctx: AdapterEnv): string {
  const fromEnv = ctx.env.PI_CODING_AGENT_DIR?.trim()
  if (!fromEnv) return trimSep(join(ctx.home, '.pi', 'agent'))
  if (fromEnv === '~') return trimSep(ctx.home)
  if (fromEnv.startsWith('~/')) return trimSep(join(ctx.home, fromEnv.slice(2)))
  return trimSep(fromEnv)
}

export function sessionsDir(ctx: AdapterEnv): string {
  return join(agentDir(ctx), 'sessions')
}

export function piRoots(ctx: AdapterEnv): string[] {
  return [sessionsDir(ctx)]
}

/** `<ISO timestamp with : and . as ->_<uuid>.jsonl`, the name pi gives a new session. */
const SESSION_NAME = /_([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl$/

/**
 * The session id a pi session file (or a header's `parentSession` path) names: the uuid after the
 * last `_`, else the file name without `.jsonl`. Null for anything that is not a `.jsonl` name.
 */
export function sessionIdOf(pathOrName: string): string | null {
  const name = basename(pathOrName.replace(/\\/g, '/'))
  const m = SESSION_NAME.exec(name)
  if (m) return m[1]!.toLowerCase()
  if (!name.endsWith('.jsonl') || name.length <= '.jsonl'.length) return null
  return name.slice(0, -'.jsonl'.length)
}

export function matchPiFile(path: string, ctx: AdapterEnv): FileMatch | null {
  const root = sessionsDir(ctx)
  const file = trimSep(path)
  if (!file.startsWith(root + sep)) return null
  const parts = file.slice(root.length + 1).split(sep)
  if (parts.length > 2) return null
  const nativeId = sessionIdOf(parts.at(-1) ?? '')
  if (nativeId === null) return null
  return {kind: 'jsonl', nativeId, role: 'session'}
}

/** pi writes nothing but session files under sessions/; deeper folders are not its own. */
export function skipPiDir(path: string): boolean {
  const name = basename(path)
  return name === 'node_modules' || name === '.git'
}
