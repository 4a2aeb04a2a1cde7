/**
 * Files rewritten whole: the process registry `~/.claude/sessions/<pid>.json` (one per running
 * `claude`; deleted on a clean exit, left behind by a crash) and a subagent's
 * `agent-<id>.meta.json` (its description).
 */
import type {Contribution, FileMatch} from '../../core/ingest/adapter.js'
import type {FactSource, ProcessStatus} from '../../core/model/types.js'
import type {RegistryFacts, SubagentMetaFacts} from './facts.js'
import {isObject, num, oneLine, str, toMs} from './text.js'

const STATUS: Readonly<Record<string, ProcessStatus>> = {
  busy: 'working',
  idle: 'idle',
  // At the prompt while a background Bash runs (2.1.328): not producing; compose counts the shell.
  shell: 'idle',
  waiting: 'waiting',
}

export function parseRegistry(path: string, text: string): Contribution[] {
  // Not JSON: a file caught mid-rewrite. Throwing lets the engine count it and keep what the
  // file said before; an empty answer would drop the process (and its ask) for one pass.
  const rec: unknown = JSON.parse(text)
  if (!isObject(rec)) return []
  const pid = num(rec['pid'])
  const sessionId = str(rec['sessionId'])
  if (pid === null || !Number.isInteger(pid) || pid <= 0 || sessionId === null || sessionId === '') return []

  const source: FactSource = {kind: 'registry', ref: path}
  const raw = str(rec['status'])
  const updatedAt = toMs(rec['updatedAt'])
  const statusUpdatedAt = toMs(rec['statusUpdatedAt'])
  const heartbeatAt = updatedAt === null ? statusUpdatedAt : statusUpdatedAt === null ? updatedAt : Math.max(updatedAt, statusUpdatedAt)
  const name = str(rec['name'])
  const cwd = str(rec['cwd'])
  const extra: RegistryFacts = {
    cwd: cwd === null || cwd === '' ? null : cwd,
    entrypoint: str(rec['entrypoint']),
    kind: str(rec['kind']),
    name: name !== null && rec['nameSource'] !== 'derived' ? oneLine(name) : null,
    role: 'registry',
    status: raw,
    statusAt: statusUpdatedAt ?? updatedAt,
    waitingFor: str(rec['waitingFor']),
  }
  return [
    {
      extra,
      // A TUI at its first prompt has a registry file and no transcript yet (2.1.328): its cwd
      // makes it a session of its own (new, idle) rather than nothing at all.
      facts: extra.kind === 'interactive' && extra.cwd !== null ? {cwd: extra.cwd} : {},
      nativeId: sessionId,
      priority: 10,
      processClaim: {
        heartbeatAt,
        pid,
        source,
        startedAt: toMs(rec['startedAt']),
        status: raw === null ? null : (STATUS[raw] ?? null),
      },
    },
  ]
}

export function parseAgentMeta(path: string, text: string, match: FileMatch & {kind: 'whole'}): Contribution[] {
  if (match.nativeId === undefined) return []
  // Not JSON (caught mid-write): thrown, so the engine keeps what the file said before.
  const rec: unknown = JSON.parse(text)
  if (!isObject(rec)) return []
  const description = str(rec['description'])
  const parent = match.nativeId.includes('/') ? match.nativeId.slice(0, match.nativeId.indexOf('/')) : null
  const extra: SubagentMetaFacts = {
    agentType: str(rec['agentType']),
    description: description === null ? null : oneLine(description),
    finished: rec['finished'] === true,
    nonInteractive: rec['requestNonInteractive'] === true,
    path,
    role: 'subagent-meta',
  }
  return [
    {
      extra,
      facts: {parentNativeId: parent},
      nativeId: match.nativeId,
      priority: 1,
    },
  ]
}

export function parseWhole(path: string, text: string, match: FileMatch & {kind: 'whole'}): Contribution[] {
  if (match.role === 'registry') return parseRegistry(path, text)
  if (match.role === 'subagent-meta') return parseAgentMeta(path, text, match)
  return []
}
