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
import {copilotFacts, factsOf} from './facts.js'
import {later} from './text.js'

type Mutable<T> = {-readonly [K in keyof T]: T[K]}

const SLACK_MS = 1000

function definedOnly(facts: Partial<SessionFacts>): Partial<SessionFacts> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(facts)) if (value !== undefined && key !== 'sources') out[key] = value
  return out
}

function processOf(locks: readonly CheckedContribution[], events: CheckedContribution | null): ProcessFacts | null {
  // 1.0.102's `inuse.<pid>.lock` holds the bare pid, no start time: a claim the engine cannot
  // tell from pid reuse, so it is no proof of life (docs/contract.md §5). Such a lock names no process
  // here; the process scan (the pane's copilot, else the one copilot in the session's folder,
  // recorded with its start time) decides instead.
  const checkable = locks.filter((c) => c.processClaim?.startedAt != null)
  const live = checkable.find((c) => c.processAlive === true)
  const chosen = live ?? checkable[0]
  const claim = chosen?.processClaim
  if (chosen === undefined || claim === undefined) return null
  const alive = chosen.processAlive === true
  const shutdown = factsOf(events, 'events')?.shutdownType ?? null
  return {
    alive,
    exited: alive ? null : shutdown !== null && shutdown !== 'error' ? 'clean' : 'crash',
    heartbeatAt: claim.heartbeatAt,
    pid: claim.pid,
    source: claim.source,
    status: claim.status,
  }
}

/** One session's sources, sorted by role. */
interface Sources {
  readonly logs: CheckedContribution[]
  readonly locks: CheckedContribution[]
  readonly others: CheckedContribution[]
  readonly workspace: CheckedContribution | null
  readonly hooks: CheckedContribution | null
}

function sortSources(contributions: readonly CheckedContribution[]): Sources {
  const logs: CheckedContribution[] = []
  const locks: CheckedContribution[] = []
  const others: CheckedContribution[] = []
  let workspace: CheckedContribution | null = null
  let hooks: CheckedContribution | null = null
  for (const c of contributions) {
    const r = copilotFacts(c)?.role ?? null
    if (r === 'events') logs.push(c)
    else if (r === 'lock') locks.push(c)
    else if (r === 'workspace') workspace = c
    else if (r === 'hooks') hooks = c
    else others.push(c)
  }

  return {hooks, locks, logs, others, workspace}
}

/** workspace.yaml: the cwd and start time when the log has none; the title; a newer update. */
function fromWorkspace(
  f: Mutable<SessionFacts>,
  sources: Record<string, FactSource>,
  workspace: CheckedContribution | null,
  others: CheckedContribution[],
): void {
  const ws = factsOf(workspace, 'workspace')
  const wsSource: FactSource | null = workspace === null ? null : {kind: 'workspace', ref: ws?.ref ?? ''}
  const wsCwd = ws?.cwd ?? null
  if (f.cwd === null && wsCwd !== null && wsSource !== null) {
    f.cwd = wsCwd
    sources['cwd'] = wsSource
  }

  const wsCreated = ws?.createdAt ?? null
  if (f.createdAt === null && wsCreated !== null && wsSource !== null) {
    f.createdAt = wsCreated
    sources['createdAt'] = wsSource
  }

  for (const c of others.sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0))) {
    Object.assign(f, definedOnly(c.facts))
    Object.assign(sources, c.facts.sources)
  }

  // Title.
  const name = ws?.name ?? null
  const summary = ws?.summary ?? null
  const userNamed = ws?.userNamed === true
  const title = (userNamed ? name : null) ?? summary ?? name
  if (title !== null && wsSource !== null) {
    f.title = title
    sources['title'] = wsSource
  }

  const updatedAt = ws?.updatedAt ?? null
  if (updatedAt !== null && (f.lastActivityAt === null || updatedAt > f.lastActivityAt) && wsSource !== null) {
    f.lastActivityAt = updatedAt
    sources['lastActivityAt'] = wsSource
  }
}

/** The hooks: the turn when newer than the log's progress, asks that stand, an error, activity, cwd. */
function fromHooks(
  f: Mutable<SessionFacts>,
  sources: Record<string, FactSource>,
  hooks: CheckedContribution,
  progressAt: number | null,
): void {
  const h = hooks.facts
  const x = factsOf(hooks, 'hooks')
  const settledAt = x?.settledAt ?? null
  const exitedAt = x?.exitedAt ?? null
  const promptAt = x?.promptAt ?? null
  const activityAt = x?.activityAt ?? null
  const event = x?.event ?? 'hook'

  if (h.settled !== undefined && settledAt !== null && (progressAt === null || settledAt + SLACK_MS >= progressAt)) {
    f.settled = h.settled
    if (h.sources?.['settled'] !== undefined) sources['settled'] = h.sources['settled']
  }

  const stands = (b: HardBlock | null | undefined): b is HardBlock =>
    b != null &&
    (exitedAt === null || exitedAt < b.at) &&
    (progressAt === null || progressAt <= b.at + SLACK_MS) &&
    f.process?.alive !== false
  if (f.approval === null && stands(h.approval)) {
    f.approval = h.approval
    sources['approval'] = h.approval.source
  }

  if (f.question === null && stands(h.question)) {
    f.question = h.question
    sources['question'] = h.question.source
  }

  if (
    f.error === null &&
    h.error != null &&
    (promptAt === null || promptAt <= h.error.at) &&
    (progressAt === null || progressAt <= h.error.at + SLACK_MS)
  ) {
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

  // Copilot 1.0.102 writes events.jsonl a second or so after the prompt: a prompt the hook saw is
  // a message, so a crash before the first write reads dead (a turn lost), not an empty session.
  if (promptAt !== null && f.messages === 0) {
    f.messages = 1
    sources['messages'] = {kind: 'hook', ref: 'UserPromptSubmit'}
  }

  const cwd = x?.cwd ?? null
  if (f.cwd === null && cwd !== null) {
    f.cwd = cwd
    sources['cwd'] = {kind: 'hook', ref: event}
  }

  if (x?.compactAt != null) sources['compaction'] ??= {kind: 'hook', ref: 'PreCompact'}
}

export function composeCopilot(_nativeId: string, contributions: readonly CheckedContribution[]): SessionFacts {
  const {hooks, locks, logs, others, workspace} = sortSources(contributions)
  // The folder's events.jsonl over an older flat file of the same session; else the newest.
  const notFlat = (c: CheckedContribution): number => Number(factsOf(c, 'events')?.flat === false)
  const events =
    [...logs].sort((a, b) => notFlat(a) - notFlat(b) || (a.facts.lastActivityAt ?? 0) - (b.facts.lastActivityAt ?? 0)).at(-1) ?? null
  const f: Mutable<SessionFacts> = {...EMPTY_FACTS}
  const sources: Record<string, FactSource> = {}
  if (events !== null) {
    Object.assign(f, definedOnly(events.facts))
    Object.assign(sources, events.facts.sources)
  }

  fromWorkspace(f, sources, workspace, others)
  f.parseErrors = contributions.reduce((n, c) => n + (c.facts.parseErrors ?? 0), 0)
  // The process.
  f.process = processOf(locks, events)
  if (f.process !== null) sources['process'] = f.process.source
  if (hooks !== null) fromHooks(f, sources, hooks, factsOf(events, 'events')?.progressAt ?? null)
  // Copilot 1.0.102 names the workspace after the first prompt at once and writes events.jsonl a
  // second or so later: a crash in between leaves the name as the only trace of a turn, which
  // then reads dead (lost), not empty. A name the user gave (/rename) says nothing of a prompt.
  const ws = factsOf(workspace, 'workspace')
  if (f.messages === 0 && events === null && ws !== null && ws.name !== null && ws.userNamed !== true) {
    f.messages = 1
    sources['messages'] = {kind: 'workspace', ref: ws.ref ?? ''}
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
