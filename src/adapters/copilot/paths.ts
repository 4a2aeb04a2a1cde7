/**
 * Where Copilot CLI keeps its sessions (docs/agents/copilot.md) and which of those files cast reads.
 *
 *   <base>/session-state/<sessionId>/events.jsonl      the event log (append-only; first line session.start)
 *   <base>/session-state/<sessionId>/workspace.yaml    id, cwd, name / summary, user_named, created_at, updated_at
 *   <base>/session-state/<sessionId>/inuse.<pid>.lock  present while a `copilot` process has the session open
 *   <base>/session-state/<sessionId>.jsonl             the older flat layout: the same events, one file
 *   <base>/history-session-state/<sessionId>.json      the oldest layout: one JSON object per session
 *
 * <base> is `$COPILOT_HOME` (what 1.0.102 documents in `copilot help environment`), else
 * `$COPILOT_CONFIG_DIR` (older builds), else `~/.copilot`. Pure: paths only.
 */
import {basename, join, normalize, sep} from 'node:path'

import type {AdapterEnv, FileMatch} from '../../core/ingest/adapter.js'

/** The id a legacy file names: `<id>.json`, or `session_<id>_<n>.json` as some builds wrote. */
export function legacyId(file: string): string {
  const name = basename(file).replace(/\.json$/, '')
  return /^session_(.+)_\d+$/.exec(name)?.[1] ?? name
}

export function copilotHome(ctx: AdapterEnv): string {
  const fromEnv = ctx.env['COPILOT_HOME']?.trim() || ctx.env['COPILOT_CONFIG_DIR']?.trim()
  return trimSep(fromEnv ? fromEnv : join(ctx.home, '.copilot'))
}

export function sessionStateDir(ctx: AdapterEnv): string {
  return join(copilotHome(ctx), 'session-state')
}

export function legacyDir(ctx: AdapterEnv): string {
  return join(copilotHome(ctx), 'history-session-state')
}

export function copilotRoots(ctx: AdapterEnv): string[] {
  return [sessionStateDir(ctx), legacyDir(ctx)]
}

function trimSep(path: string): string {
  let out = normalize(path)
  while (out.length > 1 && out.endsWith(sep)) out = out.slice(0, -1)
  return out
}

const SESSION_ID = /^[0-9A-Za-z][0-9A-Za-z_-]*$/
const LOCK = /^inuse\.(\d+)\.lock$/
const FLAT = /^([0-9A-Za-z][0-9A-Za-z_-]*)\.jsonl$/

/** The pid an `inuse.<pid>.lock` names, or null. */
export function lockPid(file: string): number | null {
  const m = LOCK.exec(file)
  if (m === null) return null
  const pid = Number(m[1])
  return Number.isSafeInteger(pid) && pid > 0 ? pid : null
}

const LEGACY = /^([0-9A-Za-z][0-9A-Za-z_-]*)\.json$/

export function matchCopilotFile(path: string, ctx: AdapterEnv): FileMatch | null {
  const root = sessionStateDir(ctx) + sep
  const full = normalize(path)
  const legacy = legacyDir(ctx) + sep
  if (full.startsWith(legacy)) {
    const m = LEGACY.exec(full.slice(legacy.length))
    return m === null ? null : {kind: 'whole', nativeId: legacyId(`${m[1] ?? ''}.json`), role: 'legacy'}
  }

  if (!full.startsWith(root)) return null
  const parts = full.slice(root.length).split(sep)

  if (parts.length === 1) {
    const flat = FLAT.exec(parts[0] ?? '')
    return flat === null ? null : {kind: 'jsonl', nativeId: flat[1] ?? '', parentNativeId: null, role: 'events'}
  }

  if (parts.length !== 2) return null
  const id = parts[0] ?? ''
  const file = parts[1] ?? ''
  if (!SESSION_ID.test(id)) return null
  if (file === 'events.jsonl') return {kind: 'jsonl', nativeId: id, parentNativeId: null, role: 'events'}
  if (file === 'workspace.yaml') return {kind: 'whole', nativeId: id, role: 'workspace'}
  if (lockPid(file) !== null) return {kind: 'whole', nativeId: id, role: 'lock'}
  return null
}

/** Folders inside a session that hold no state cast reads. */
const SKIP_DIRS = new Set(['checkpoints', 'files', 'research', 'node_modules', '.git'])

export function skipCopilotDir(path: string): boolean {
  return SKIP_DIRS.has(basename(path))
}
