/**
 * Combine what one Copilot CLI session's files and hooks say: the event log (history and the
 * turn), workspace.yaml (name, cwd), the `inuse.<pid>.lock` (is a process running it?) and the
 * hooks (the moments in between, and the permission prompts newer builds do not persist).
 *
 * - Title: a name the user gave (`user_named`), else the summary, else the generated name, else
 *   the first prompt.
 * - Process: a live lock wins; a lock whose pid is dead is a crash unless the log ends with a
 *   routine `session.shutdown` (then it exited cleanly and only the lock was left behind).
 * - Turn: the newer of the log's last progress event and the last turn hook.
 * - Asks: the log's own permission prompt or `ask_user` call first; a hook's stands until the
 *   log shows the conversation moving after it, or a later hook closes it.
 */
import type {CheckedContribution} from '../../core/ingest/adapter.js'
import {EMPTY_FACTS, type FactSource, type HardBlock, type ProcessFacts, type SessionFacts} from '../../core/model/types.js'
import {isObject, later, num, str} from './text.js'

type Mutable<T> = {-readonly [K in keyof T]: T[K]}

const SLACK_MS = 1000

function role(c: CheckedContribution): string | null {
  return isObject(c.extra) ? str(c.extra['role']) : null
}

function extraNum(c: CheckedContribution | null | undefined, key: string): number | null {
  return c != null && isObject(c.extra) ? num(c.extra[key]) : null
}

function extraStr(c: CheckedContribution | null | undefined, key: string): string | null {
  return c != null && isObject(c.extra) ? str(c.extra[key]) : null
}

function definedOnly(facts: Partial<SessionFacts>): Partial<SessionFacts> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(facts)) if (value !== undefined && key !== 'sources') out[key] = value
  return out as Partial<SessionFacts>
}

function processOf(locks: readonly CheckedContribution[], events: CheckedContribution | null): ProcessFacts | null {
  // 1.0.102's `inuse.<pid>.lock` holds the bare pid, no start time: a claim the engine cannot
  // tell from pid reuse, so it is no proof of life (DESIGN §5). Such a lock names no process
  // here; the process scan (the pane's copilot, else the one copilot in the session's folder,
  // recorded with its start time) decides instead.
  const checkable = locks.filter((c) => c.processClaim?.startedAt != null)
  const live = checkable.find((c) => c.processAlive === true)
  const chosen = live ?? checkable[0]
  const claim = chosen?.processClaim
  if (chosen === undefined || claim === undefined) return null
  const alive = chosen.processAlive === true
  const shutdown = extraStr(events, 'shutdownType')
  return {
    alive,
    exited: alive ? null : shutdown !== null && shutdown !== 'error' ? 'clean' : 'crash',
    heartbeatAt: claim.heartbeatAt,
    pid: claim.pid,
    source: claim.source,
    status: claim.status,
  }
}

export function composeCopilot(_nativeId: string, contributions: readonly CheckedContribution[]): SessionFacts {
  const logs: CheckedContribution[] = []
  const locks: CheckedContribution[] = []
  const others: CheckedContribution[] = []
  let workspace: CheckedContribution | null = null
  let hooks: CheckedContribution | null = null
  for (const c of contributions) {
    const r = role(c)
    if (r === 'events') logs.push(c)
    else if (r === 'lock') locks.push(c)
    else if (r === 'workspace') workspace = c
    else if (r === 'hooks') hooks = c
    else others.push(c)
  }

  // The folder's events.jsonl over an older flat file of the same session; else the newest.
  const events = [...logs].sort((a, b) => Number(a.extra?.['flat'] === false) - Number(b.extra?.['flat'] === false) || (a.facts.lastActivityAt ?? 0) - (b.facts.lastActivityAt ?? 0)).at(-1) ?? null
  const f: Mutable<SessionFacts> = {...EMPTY_FACTS}
  const sources: Record<string, FactSource> = {}
  if (events !== null) {
    Object.assign(f, definedOnly(events.facts))
    Object.assign(sources, events.facts.sources)
  }

  // workspace.yaml: the cwd and start time when the log has none.
  const wsSource: FactSource | null = workspace === null ? null : {kind: 'workspace', ref: extraStr(workspace, 'ref') ?? ''}
  const wsCwd = extraStr(workspace, 'cwd')
  if (f.cwd === null && wsCwd !== null && wsSource !== null) {
    f.cwd = wsCwd
    sources['cwd'] = wsSource
  }

  const wsCreated = extraNum(workspace, 'createdAt')
  if (f.createdAt === null && wsCreated !== null && wsSource !== null) {
    f.createdAt = wsCreated
    sources['createdAt'] = wsSource
  }

  for (const c of others.sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0))) {
    Object.assign(f, definedOnly(c.facts))
    Object.assign(sources, c.facts.sources)
  }

  f.parseErrors = contributions.reduce((n, c) => n + (c.facts.parseErrors ?? 0), 0)

  // Title.
  const name = extraStr(workspace, 'name')
  const summary = extraStr(workspace, 'summary')
  const userNamed = workspace?.extra?.['userNamed'] === true
  const title = (userNamed ? name : null) ?? summary ?? name
  if (title !== null && wsSource !== null) {
    f.title = title
    sources['title'] = wsSource
  }

  const updatedAt = extraNum(workspace, 'updatedAt')
  if (updatedAt !== null && (f.lastActivityAt === null || updatedAt > f.lastActivityAt) && wsSource !== null) {
    f.lastActivityAt = updatedAt
    sources['lastActivityAt'] = wsSource
  }

  // The process.
  f.process = processOf(locks, events)
  if (f.process !== null) sources['process'] = f.process.source

  // Hooks.
  const progressAt = extraNum(events, 'progressAt')
  if (hooks !== null) {
    const h = hooks.facts
    const settledAt = extraNum(hooks, 'settledAt')
    const exitedAt = extraNum(hooks, 'exitedAt')
    const promptAt = extraNum(hooks, 'promptAt')
    const activityAt = extraNum(hooks, 'activityAt')
    const event = extraStr(hooks, 'event') ?? 'hook'

    if (h.settled !== undefined && settledAt !== null && (progressAt === null || settledAt + SLACK_MS >= progressAt)) {
      f.settled = h.settled
      if (h.sources?.['settled'] !== undefined) sources['settled'] = h.sources['settled']
    }

    const stands = (b: HardBlock | null | undefined): b is HardBlock =>
      b != null && (exitedAt === null || exitedAt < b.at) && (progressAt === null || progressAt <= b.at + SLACK_MS) && f.process?.alive !== false
    if (f.approval === null && stands(h.approval)) {
      f.approval = h.approval
      sources['approval'] = h.approval.source
    }

    if (f.question === null && stands(h.question)) {
      f.question = h.question
      sources['question'] = h.question.source
    }

    if (f.error === null && h.error != null && (promptAt === null || promptAt <= h.error.at) && (progressAt === null || progressAt <= h.error.at + SLACK_MS)) {
      f.error = h.error
      sources['error'] = h.error.source
    } else if (f.error !== null && promptAt !== null && promptAt > f.error.at) {
      f.error = null
      sources['error'] = {kind: 'hook', ref: 'UserPromptSubmit'}
    }

    if (activityAt !== null && (f.lastActivityAt === null || activityAt > f.lastActivityAt)) {
      f.lastActivityAt = activityAt
      sources['lastActivityAt'] = {kind: 'hook', ref: event}
    }

    const cwd = extraStr(hooks, 'cwd')
    if (f.cwd === null && cwd !== null) {
      f.cwd = cwd
      sources['cwd'] = {kind: 'hook', ref: event}
    }

    if (extraNum(hooks, 'compactAt') !== null) sources['compaction'] ??= {kind: 'hook', ref: 'PreCompact'}
  }

  // A process gone without a clean shutdown leaves no open ask behind it: it reads dead.
  if (f.process !== null && !f.process.alive) {
    f.approval = null
    f.question = null
  }

  f.lastActivityAt = later(f.lastActivityAt, f.createdAt)
  f.sources = sources
  return f
}
