/**
 * Where Gemini CLI keeps its chats (docs/agents/gemini.md) and which of them cast reads.
 *
 *   <gemini>/tmp/<project>/chats/session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl   main chat, ≥ 0.39 (append-only log)
 *   <gemini>/tmp/<project>/chats/session-<YYYY-MM-DDTHH-MM>-<id8>.json    main chat, ≤ 0.38 (rewritten whole)
 *   <gemini>/tmp/<project>/chats/<parentSessionId>/<sessionId>.jsonl      subagent chat
 *   <gemini>/tmp/<project>/.project_root                                  the project's absolute path (slug folders)
 *   <gemini>/projects.json                                                {"projects": {"/abs/path": "slug"}}
 *
 * <gemini> is `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`. <project> is a slug (≥ 0.29, e.g.
 * `my-app`, `my-app-1`) or the sha256 of the project path (≤ 0.28).
 *
 * The cwd of a chat is a fact of its project folder, not of the chat file. The engine joins
 * contributions only by session id, and a project folder's marker cannot know which sessions it
 * holds, so match() looks the project path up when it meets a chat file (one small read per
 * project per process, cached) and hands it to the parsers on the FileMatch. That lookup is the
 * only I/O in this adapter; the parsers stay pure.
 */
import {createHash} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {basename, join, normalize, sep} from 'node:path'

import type {AdapterEnv, FileMatch} from '../../core/ingest/adapter.js'
import {isObject} from './text.js'

/** The FileMatch of a chat file, carrying its project folder's path when known. */
export type GeminiMatch = FileMatch & {
  /** The project's absolute path (from `.project_root` or projects.json), or null. */
  readonly cwd?: string | null
  /** The project folder's name under tmp/ (a slug or a sha256). */
  readonly project?: string
}

/** `$GEMINI_CLI_HOME/.gemini`, else `<home>/.gemini`. */
export function geminiHome(ctx: AdapterEnv): string {
  const fromEnv = ctx.env['GEMINI_CLI_HOME']?.trim()
  return trimSep(join(fromEnv ? fromEnv : ctx.home, '.gemini'))
}

export function geminiRoots(ctx: AdapterEnv): string[] {
  return [join(geminiHome(ctx), 'tmp')]
}

function trimSep(path: string): string {
  let out = normalize(path)
  while (out.length > 1 && out.endsWith(sep)) out = out.slice(0, -1)
  return out
}

const MAIN_JSONL = /^session-.+\.jsonl$/
const MAIN_JSON = /^session-.+\.json$/
const SUB_JSONL = /^([^.][^/]*)\.jsonl$/

/** The id part of a main chat's file name (`session-2026-08-01T10-00-1a2b3c4d.jsonl` -> `1a2b3c4d`). */
export function shortIdOf(file: string): string {
  const stem = file.replace(/\.jsonl?$/, '')
  return stem.slice(stem.lastIndexOf('-') + 1)
}

export function matchGeminiFile(path: string, ctx: AdapterEnv): GeminiMatch | null {
  const tmp = join(geminiHome(ctx), 'tmp') + sep
  const full = normalize(path)
  if (!full.startsWith(tmp)) return null
  const parts = full.slice(tmp.length).split(sep)
  const project = parts[0] ?? ''
  if (parts[1] !== 'chats' || project === '') return null

  if (parts.length === 3) {
    const file = parts[2] ?? ''
    const cwd = projectRootOf(geminiHome(ctx), project)
    if (MAIN_JSONL.test(file)) return {cwd, kind: 'jsonl', nativeId: shortIdOf(file), parentNativeId: null, project, role: 'chat'}
    if (MAIN_JSON.test(file)) return {cwd, kind: 'whole', nativeId: shortIdOf(file), project, role: 'chat'}
    return null
  }

  if (parts.length === 4) {
    const parent = parts[2] ?? ''
    const sub = SUB_JSONL.exec(parts[3] ?? '')
    if (sub === null || parent === '') return null
    const cwd = projectRootOf(geminiHome(ctx), project)
    return {cwd, kind: 'jsonl', nativeId: sub[1] ?? '', parentNativeId: parent, project, role: 'subagent'}
  }

  return null
}

/** Folders under a project that hold no chats and can be large. */
const SKIP_DIRS = new Set(['bin', 'checkpoints', 'tool-outputs', 'logs', 'plans', 'tasks', 'tracker', 'images', 'node_modules', '.git'])

export function skipGeminiDir(path: string): boolean {
  return SKIP_DIRS.has(basename(path))
}

// ---------------------------------------------------------------------------------------------
// The project folder -> project path lookup (the adapter's one read, cached per process)

interface Cached {
  readonly cwd: string | null
  readonly at: number
}

/** A project whose path is not known yet is looked up again after this long. */
const RETRY_MS = 30_000
const roots = new Map<string, Cached>()
/** projects.json as last read, for one Gemini folder (one process may read several homes: tests). */
let registry: {readonly gemini: string; readonly at: number; readonly byProject: ReadonlyMap<string, string>} | null = null

/** `{"projects": {"/abs/path": "slug"}}` -> slug and sha256(path) -> path. */
export function parseProjectsJson(text: string): Map<string, string> {
  const out = new Map<string, string>()
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch {
    return out
  }

  const projects = isObject(doc) ? doc['projects'] : null
  if (!isObject(projects)) return out
  for (const [path, slug] of Object.entries(projects)) {
    if (typeof slug === 'string' && slug !== '') out.set(slug, path)
    out.set(projectHash(path), path)
  }

  return out
}

/** Gemini CLI's project hash: sha256 of the project path, hex. */
export function projectHash(path: string): string {
  return createHash('sha256').update(path).digest('hex')
}

function readRegistry(gemini: string, now: number): ReadonlyMap<string, string> {
  if (registry !== null && registry.gemini === gemini && now - registry.at < RETRY_MS) return registry.byProject
  let byProject = new Map<string, string>()
  try {
    byProject = parseProjectsJson(readFileSync(join(gemini, 'projects.json'), 'utf8'))
  } catch {
    // no registry (≤ 0.28, or a fresh install)
  }

  registry = {at: now, byProject, gemini}
  return byProject
}

/**
 * The absolute path of a project folder: its `.project_root` marker (slug folders, written once
 * when the slug is claimed), else projects.json (a slug, or a sha256 of one of its paths).
 */
export function projectRootOf(gemini: string, project: string): string | null {
  const key = join(gemini, 'tmp', project)
  const now = Date.now()
  const hit = roots.get(key)
  if (hit !== undefined && (hit.cwd !== null || now - hit.at < RETRY_MS)) return hit.cwd
  let cwd: string | null = null
  try {
    const text = readFileSync(join(key, '.project_root'), 'utf8').trim()
    if (text !== '' && !text.includes('\n')) cwd = text
  } catch {
    // no marker: a hash folder, or a marker not written yet
  }

  if (cwd === null) cwd = readRegistry(gemini, now).get(project) ?? null
  roots.set(key, {at: now, cwd})
  return cwd
}

/** Forget cached project paths (tests). */
export function resetProjectRoots(): void {
  roots.clear()
  registry = null
}
