/**
 * Resumable parser for Copilot CLI's `events.jsonl` (docs/agents/copilot.md). Every line is an
 * envelope `{type, data, id, timestamp, parentId, agentId?}`; events from inside a subagent carry
 * `agentId` and/or `data.parentToolCallId` (the `task` tool call that runs it).
 *
 *   session.start / session.resume     id, cwd (context.cwd), selected model; a (new) process
 *   user.message                       a turn starts
 *   assistant.turn_start / turn_end    one model round; a round whose reply asked for tools is
 *                                      followed by another
 *   assistant.message                  a reply (counted once per messageId)
 *   tool.execution_start / _complete   open tool calls; an open `ask_user` is a question
 *   permission.requested / completed   a permission prompt, when the build persists it
 *   abort, session.task_complete       the turn ended (task_complete holds through the
 *                                      assistant.turn_end that follows it, seen in 1.0.102)
 *   tool.execution_complete "…shellId: N is still running…"   a background shell (1.0.102:
 *                                      a sync bash returns after 30 s and keeps running)
 *   system.notification                shell_completed closes that shell; a notification at
 *                                      a settled prompt starts a turn with no user.message
 *   session.error                      an error (the turn ended); cleared by the next prompt
 *   session.shutdown                   the process exited (routine or error)
 *   subagent.started / completed / failed, and the events inside one: subagent children
 *   session.compaction_complete, session.truncation: compaction
 *
 * The handlers are in events-handlers.ts, the state in events-state.ts; this module feeds them and
 * turns the state into the file's contributions.
 */
import type {Contribution, FileMatch, JsonRecord, JsonlParser} from '../../core/ingest/adapter.js'
import type {FactSource, HardBlock, SessionFacts} from '../../core/model/types.js'
import {HANDLERS} from './events-handlers.js'
import type {EventsFacts, SubagentFacts} from './facts.js'
import {type CopilotState, initCopilot, insideSubagent, isSettled, PROGRESS, type Subagent, subagentOf} from './events-state.js'
import {isObject, later, toMs} from './text.js'

export {
  type CopilotState,
  initCopilot,
  isSettled,
  type OpenPermission,
  type OpenTool,
  permissionText,
  type Subagent,
} from './events-state.js'

/** Feed one line, parsed by the engine. Returns false for an event with no type (counted as malformed). */
export function feedEvents(s: CopilotState, env: JsonRecord, offset: number): boolean {
  if (typeof env['type'] !== 'string') return false

  const type = env['type']
  const data = isObject(env['data']) ? env['data'] : {}
  const at = toMs(env['timestamp'])
  if (at !== null && (s.lastActivityAt === null || at >= s.lastActivityAt)) {
    s.lastActivityAt = at
    s.src['lastActivityAt'] = offset
  }

  if (PROGRESS.has(type)) s.progressAt = later(s.progressAt, at)
  const sub = subagentOf(s, env, data)
  if (sub !== null) sub.lastAt = later(sub.lastAt, at)
  HANDLERS[type]?.(s, {at, data, env, inside: insideSubagent(env, data), offset, sub, type})
  return true
}

export function eventsContributions(s: CopilotState, path: string, match: FileMatch & {kind: 'jsonl'}): Contribution[] {
  const nativeId = s.sessionId ?? match.nativeId
  const at = (fact: string): FactSource => {
    const offset = s.src[fact]
    return offset === undefined ? {kind: 'transcript', ref: path} : {kind: 'transcript', offset, ref: path}
  }

  const sources: Record<string, FactSource> = {}
  for (const fact of Object.keys(s.src)) sources[fact] = at(fact)
  if (s.firstPrompt !== null) sources['title'] = at('title')

  const ask = s.openTools.find((t) => t.question !== undefined)
  const question: HardBlock | null =
    ask === undefined ? null : {at: ask.at ?? s.progressAt ?? 0, source: at('question'), text: ask.question ?? 'Question'}
  const perm = s.permissions[0]
  const approval: HardBlock | null =
    perm === undefined
      ? null
      : {at: perm.at ?? s.progressAt ?? 0, source: {kind: 'transcript', offset: perm.offset, ref: path}, text: perm.text}
  if (approval !== null) sources['approval'] = approval.source
  const error: HardBlock | null =
    s.error === null ? null : {at: s.error.at ?? s.lastActivityAt ?? 0, source: at('error'), text: s.error.text}

  const facts: Partial<SessionFacts> = {
    approval,
    backgroundWork: s.shells?.length ?? 0,
    createdAt: s.createdAt,
    cwd: s.cwd,
    error,
    lastActivityAt: s.lastActivityAt,
    lastAssistantText: s.lastAssistantText,
    lastOutputAt: s.lastOutputAt,
    messages: s.prompts + s.replies,
    model: s.model ?? s.selectedModel,
    parentNativeId: null,
    question,
    settled: isSettled(s),
    sources,
    title: s.firstPrompt,
    turnIndex: s.turnIndex,
    turnStartedAt: s.turnStartedAt,
  }
  const extra: EventsFacts = {
    aborts: s.aborts,
    compactions: s.compactions,
    firstPrompt: s.firstPrompt,
    flat: !path.endsWith('events.jsonl'),
    openTools: s.openTools.length,
    progressAt: s.progressAt,
    role: 'events',
    shutdownAt: s.shutdown?.at ?? null,
    shutdownType: s.shutdown?.type ?? null,
    startedAt: s.startedAt,
    version: s.version,
  }
  const out: Contribution[] = [{extra, facts, nativeId, priority: 0}]

  // Subagents: children folded under this session.
  for (const a of s.subagents) out.push(subagentContribution(s, a, nativeId, path))
  return out
}

const SUBAGENT: SubagentFacts = {role: 'subagent'}

/** A subagent's contribution: a child of the session that ran it. */
function subagentContribution(s: CopilotState, a: Subagent, nativeId: string, path: string): Contribution {
  const childSources: Record<string, FactSource> = {parentNativeId: {kind: 'transcript', ref: path}}
  const failed: HardBlock | null =
    a.failed === null ? null : {at: a.endedAt ?? a.lastAt ?? 0, source: {kind: 'transcript', ref: path}, text: a.failed}
  return {
    extra: SUBAGENT,
    facts: {
      createdAt: a.startedAt,
      cwd: s.cwd,
      error: failed,
      lastActivityAt: a.lastAt,
      lastOutputAt: a.lastAt,
      messages: a.messages,
      model: a.model ?? s.model,
      parentNativeId: nativeId,
      settled: a.endedAt !== null,
      sources: childSources,
      title: a.title ?? a.name,
      turnIndex: 1,
      turnStartedAt: a.startedAt,
    },
    nativeId: `${nativeId}/${a.id}`,
    priority: 0,
  }
}

export const eventsParser: JsonlParser<CopilotState> = {
  contributions: eventsContributions,
  init: () => initCopilot(),
  line: feedEvents,
}
