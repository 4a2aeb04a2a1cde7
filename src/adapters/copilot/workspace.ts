/**
 * The two small files of a Copilot session folder that are rewritten whole:
 * - `workspace.yaml`: `id`, `cwd`, `name` (with `user_named: true` when the user renamed the
 *   session) or, in older builds, `summary`, `created_at`, `updated_at`;
 * - `inuse.<pid>.lock`: present while a `copilot` process has the session open. It becomes a
 *   process claim the engine checks against the process table. A clean exit removes it; a crash
 *   leaves it behind with a dead pid.
 */
import {createRequire} from 'node:module'
import {basename, dirname} from 'node:path'

import type {Contribution} from '../../core/ingest/adapter.js'
import type {FactSource} from '../../core/model/types.js'
import type {LockFacts, WorkspaceFacts} from './facts.js'
import {lockPid} from './paths.js'
import {firstLine, isObject, num, str, toMs} from './text.js'

type YamlParse = (text: string) => unknown
let yamlParse: YamlParse | null = null

/** The `yaml` package, loaded on the first workspace.yaml (it costs ~30 ms to load). */
function parseYaml(text: string): unknown {
  if (yamlParse === null) {
    const require = createRequire(import.meta.url)
    yamlParse = (require('yaml') as {parse: YamlParse}).parse
  }

  return yamlParse(text)
}

/** Throws on YAML that does not parse (a file caught mid-write): the engine counts it. */
export function parseWorkspace(path: string, text: string, nativeId: string): Contribution[] {
  const doc = parseYaml(text)
  if (!isObject(doc)) return []
  const id = str(doc['id']) ?? nativeId
  const extra: WorkspaceFacts = {
    createdAt: toMs(doc['created_at']),
    cwd: str(doc['cwd']),
    name: typeof doc['name'] === 'string' ? firstLine(doc['name']) : null,
    ref: path,
    role: 'workspace',
    summary: typeof doc['summary'] === 'string' ? firstLine(doc['summary']) : null,
    updatedAt: toMs(doc['updated_at']),
    userNamed: doc['user_named'] === true,
  }
  return [{extra, facts: {}, nativeId: id, priority: 5}]
}

/**
 * `inuse.<pid>.lock` -> a process claim. The file is empty or holds the pid; when it holds JSON
 * with a start time, that guards against pid reuse too.
 */
export function parseLock(path: string, text: string): Contribution[] {
  const pid = lockPid(basename(path))
  if (pid === null) return []
  let startedAt: number | null = null
  const trimmed = text.trim()
  if (trimmed.startsWith('{')) {
    try {
      const doc = JSON.parse(trimmed) as unknown
      if (isObject(doc)) startedAt = toMs(doc['startedAt']) ?? toMs(doc['startTime']) ?? num(doc['start'])
    } catch {
      // not JSON after all: the name's pid is enough
    }
  }

  const source: FactSource = {kind: 'registry', ref: path}
  const extra: LockFacts = {pid, role: 'lock'}
  return [
    {
      extra,
      // A folder someone has open is a session even before its first prompt: 1.0.102 writes
      // events.jsonl only then, so a fresh TUI's folder holds just workspace.yaml and this lock.
      // (`messages` is what tells the engine a file describes a session; compose takes the
      // count from the event log, never from here.)
      facts: {messages: 0, sources: {process: source}},
      nativeId: basename(dirname(path)),
      priority: 10,
      processClaim: {heartbeatAt: null, pid, source, startedAt, status: null},
    },
  ]
}
