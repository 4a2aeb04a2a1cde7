/**
 * Where Codex keeps its files (docs/agents/codex.md) and which of them the engine should read.
 *
 *   $CODEX_HOME/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<threadId>.jsonl
 *   $CODEX_HOME/archived_sessions/rollout-…-<threadId>.jsonl
 *   $CODEX_HOME/session_index.jsonl   ({id, thread_name, updated_at}, the /rename titles)
 */
import {basename, join, normalize, sep} from 'node:path'
import type {AdapterEnv, FileMatch} from '../../core/ingest/adapter.js'

export const SESSIONS_DIR = 'sessions'
export const ARCHIVED_DIR = 'archived_sessions'
export const SESSION_INDEX = 'session_index.jsonl'

/** `rollout-<local date>T<local time>-<thread id>.jsonl`; the date part has a fixed width. */
const ROLLOUT_NAME = /^rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-(.+)\.jsonl$/

/** Folders inside CODEX_HOME that never hold rollouts and can be large. */
const SKIP_DIRS = new Set([
  '.git',
  '.tmp',
  'cache',
  'log',
  'logs',
  'memories',
  'node_modules',
  'plugins',
  'prompts',
  'rules',
  'shell_snapshots',
  'skills',
  'sqlite',
  'tmp',
  'vendor_imports',
  'worktrees',
])

/** A POSIX path normalize() would change: a doubled separator, a `.` or `..` segment. */
const NOT_NORMAL = /\/\/|\/\.\.?(?:\/|$)/

function trimSep(path: string): string {
  // Discovery hands over normalised paths (src/core/ingest/discover.ts): normalise only what may not be.
  let out = sep !== '/' || NOT_NORMAL.test(path) ? normalize(path) : path
  while (out.length > 1 && out.endsWith(sep)) out = out.slice(0, -1)
  return out
}

/** `$CODEX_HOME`, else `<home>/.codex`. */
export function codexHome(ctx: AdapterEnv): string {
  const fromEnv = ctx.env.CODEX_HOME?.trim()
  if (lastCodexHome && lastCodexHome.fromEnv === fromEnv && lastCodexHome.home === ctx.home) return lastCodexHome.dir
  const dir = trimSep(fromEnv ? fromEnv : join(ctx.home, '.codex'))
  lastCodexHome = {dir, fromEnv, home: ctx.home}
  return dir
}

/** The last answer of codexHome, for the same inputs (it is asked for every file discovery matches). */
let lastCodexHome: {fromEnv: string | undefined; home: string; dir: string} | null = null

export function codexRoots(ctx: AdapterEnv): string[] {
  const home = codexHome(ctx)
  return [join(home, SESSIONS_DIR), join(home, ARCHIVED_DIR), home]
}

/** The thread id a rollout file name ends with, or null when it is not a rollout name. */
export function threadIdOf(fileName: string): string | null {
  const match = ROLLOUT_NAME.exec(fileName)
  return match?.[1] ?? null
}

// The last home's paths: discovery matches every file under the roots (thousands on a real
// history), and joining the same folders for each cost a no-op sync tens of ms.
let lastHome: {home: string; index: string; sessions: string; archived: string} | null = null

function homePaths(home: string): {index: string; sessions: string; archived: string} {
  if (lastHome?.home !== home)
    lastHome = {archived: join(home, ARCHIVED_DIR) + sep, home, index: join(home, SESSION_INDEX), sessions: join(home, SESSIONS_DIR) + sep}
  return lastHome
}

export function matchCodexFile(path: string, ctx: AdapterEnv): FileMatch | null {
  const at = homePaths(codexHome(ctx))
  const file = trimSep(path)
  if (file === at.index) return {kind: 'whole', role: 'session_index'}
  const nativeId = threadIdOf(basename(file))
  if (nativeId === null) return null
  if (file.startsWith(at.sessions)) return {kind: 'jsonl', nativeId, role: 'rollout'}
  if (file.startsWith(at.archived)) return {kind: 'jsonl', nativeId, role: 'archived'}
  return null
}

export function skipCodexDir(path: string): boolean {
  return SKIP_DIRS.has(basename(trimSep(path)))
}
