/**
 * Resumable parser for a Claude Code transcript (docs/agents/claude-code.md).
 *
 * The engine feeds complete lines in order, each parsed once, to the line handlers
 * (transcript-lines.ts), and stores the state (transcript-state.ts) as JSON between runs; this
 * module turns the state into the file's contribution.
 */
import type {Contribution, FileMatch, JsonlParser} from '../../core/ingest/adapter.js'
import type {FactSource, HardBlock, SessionFacts} from '../../core/model/types.js'
import type {TranscriptFacts} from './facts.js'
import {feedLine} from './transcript-lines.js'
import {initTranscript, type Mark, type OpenTool, SETTLED_KINDS, type TranscriptState} from './transcript-state.js'

export {feedLine} from './transcript-lines.js'
export {type Block, initTranscript, type LastKind, type Mark, type OpenTool, type TranscriptState} from './transcript-state.js'

/** The open question, if an AskUserQuestion / ExitPlanMode call has no result yet. */
function openQuestion(s: TranscriptState, source: (off: number) => FactSource): HardBlock | null {
  let found: OpenTool | null = null
  for (const tool of Object.values(s.open)) {
    if (tool.ask !== undefined && (found === null || tool.off >= found.off)) found = tool
  }
  if (found === null || found.ask === undefined) return null
  return {
    at: found.at ?? 0,
    source: source(found.off),
    text: found.ask,
    ...(found.choices ? {choices: found.choices} : {}),
    ...(found.questions ? {questions: found.questions} : {}),
  }
}

/** The newest open tool call that is not a question (what a permission dialog is about). */
function lastOpenTool(s: TranscriptState): {name: string; at: number | null} | null {
  let found: OpenTool | null = null
  for (const tool of Object.values(s.open)) if (tool.ask === undefined && (found === null || tool.off >= found.off)) found = tool
  return found === null ? null : {at: found.at, name: found.name}
}

export function isSettled(s: TranscriptState): boolean {
  return Object.keys(s.open).length === 0 && SETTLED_KINDS.includes(s.last)
}

export type TitleRank = 'custom' | 'ai' | 'summary' | 'prompt'

/** The transcript's best title and where it ranks (custom > ai-title > summary > first prompt). */
function bestTitle(s: TranscriptState): {mark: Mark; rank: TitleRank} | null {
  if (s.custom !== null) return {mark: s.custom, rank: 'custom'}
  if (s.ai !== null) return {mark: s.ai, rank: 'ai'}
  if (s.summary !== null) return {mark: s.summary, rank: 'summary'}
  if (s.prompt !== null) return {mark: s.prompt, rank: 'prompt'}
  return null
}

/** The session a file describes: its name, or for a CC 2.0.x agent file, `<sessionId>/agent-<id>`. */
function sessionOf(s: TranscriptState, match: FileMatch & {kind: 'jsonl'}): {nativeId: string; parent: string | null} {
  const parent = match.parentNativeId ?? null
  if (s.sub && parent === null && s.sid !== null && !match.nativeId.includes('/')) {
    return {nativeId: `${s.sid}/${match.nativeId}`, parent: s.sid}
  }
  return {nativeId: match.nativeId, parent}
}

export function transcriptContributions(s: TranscriptState, path: string, match: FileMatch & {kind: 'jsonl'}): Contribution[] {
  const source = (off: number): FactSource => ({kind: 'transcript', offset: off, ref: path})
  const {nativeId, parent} = sessionOf(s, match)
  const title = bestTitle(s)
  const error: HardBlock | null = s.error === null ? null : {at: s.error.at ?? 0, source: source(s.error.off), text: s.error.text}

  const sources: Record<string, FactSource> = {}
  for (const [fact, off] of Object.entries(s.src)) sources[fact] = source(off)
  if (title !== null) sources['title'] = source(title.mark.off)
  sources['settled'] = source(s.lastOff)
  sources['backgroundWork'] = source(s.bgOff)
  sources['queued'] = source(s.queuedOff)
  if (s.text !== null) sources['lastAssistantText'] = source(s.textOff)

  const facts: Partial<SessionFacts> = {
    backgroundWork: s.bg.length,
    // Only once the turn has ended: a finish inside a running turn is the turn's to take up.
    backgroundDoneAt: isSettled(s) ? (s.doneAt ?? null) : null,
    createdAt: s.createdAt,
    cwd: s.cwd,
    error,
    lastActivityAt: s.lastActivityAt,
    lastAssistantText: s.text,
    lastOutputAt: s.lastOutputAt,
    lastPromptText: s.lastPrompt ?? null,
    turnTools: [...(s.turnTools ?? [])],
    messages: s.prompts + s.assistants,
    model: s.model,
    parentNativeId: parent,
    question: openQuestion(s, source),
    queued: s.queued,
    settled: isSettled(s),
    sources,
    title: title?.mark.text ?? null,
    turnIndex: s.turns,
    turnStartedAt: s.turnStartedAt,
  }
  const extra: TranscriptFacts = {
    backgroundAgents: s.agents?.length ?? 0,
    backgroundTasks: [...s.bg],
    endAt: s.last === 'end' ? (s.endAt ?? null) : null,
    openTool: lastOpenTool(s),
    pendingAgents: s.pendingAgents ?? 0,
    lastConvAt: s.lastConvAt,
    lastInputAt: s.lastInputAt,
    last: s.last,
    openTools: Object.keys(s.open).length,
    role: 'transcript',
    titleRank: title?.rank ?? null,
  }
  return [
    {
      extra,
      facts,
      nativeId,
      priority: 0,
    },
  ]
}

export const transcriptParser: JsonlParser<TranscriptState> = {
  contributions: transcriptContributions,
  init: initTranscript,
  line: feedLine,
}
