/**
 * The Claude Code transcript parser's state (docs/agents/claude-code.md): what it remembers between
 * lines and between runs (stored as JSON, so it holds counters, the open tool calls, a few recent
 * message ids and the title candidates: its size does not grow with the file), and the small
 * steps the line handlers (transcript-lines.ts) take on it.
 */
import type {AskedQuestion, QuestionChoice} from '../../core/model/types.js'
import type {FileMatch} from '../../core/ingest/adapter.js'

/** What the last line of the main conversation was: settled is read from it. */
export type LastKind =
  | 'none'
  | 'prompt' // a real user prompt: the agent acts next
  | 'command' // a slash command: a local one settles with its output, others get a reply
  | 'result' // a tool result: the agent continues
  | 'wake' // a task notification injected as a user message: the agent continues
  | 'thinking' // an assistant line with only thinking: more blocks follow
  | 'tool' // an assistant line with a tool_use
  | 'reply' // an assistant line with text and no tool_use
  | 'error' // an API error banner ended the turn
  | 'end' // system turn_duration / stop_hook_summary
  | 'interrupt' // [Request interrupted by user…]
  | 'local' // a local command printed its output

export const SETTLED_KINDS: readonly LastKind[] = ['reply', 'error', 'end', 'interrupt', 'local']

export interface OpenTool {
  readonly name: string
  readonly at: number | null
  readonly off: number
  /** AskUserQuestion / ExitPlanMode: the text of the ask. */
  readonly ask?: string
  /** AskUserQuestion with one single-choice question: its options (input.questions[0].options). */
  readonly choices?: readonly QuestionChoice[]
  /** AskUserQuestion with several questions or a multiple choice: every question (askQuestions). */
  readonly questions?: readonly AskedQuestion[]
  /** BashOutput / KillShell (KillBash): the background shell it reads or kills. */
  readonly shell?: string
}

export interface Mark {
  readonly text: string
  readonly off: number
}

export interface Block {
  readonly text: string
  readonly at: number | null
  readonly off: number
}

export interface TranscriptState {
  readonly v: 1
  /** A subagent file: its lines are all sidechain lines, and they are its own conversation. */
  sub: boolean
  /** The sessionId written inside (used for CC 2.0.x top-level agent-*.jsonl files). */
  sid: string | null
  cwd: string | null
  model: string | null
  custom: Mark | null
  ai: Mark | null
  summary: Mark | null
  prompt: Mark | null
  createdAt: number | null
  lastActivityAt: number | null
  lastOutputAt: number | null
  /** Last main-conversation line (user or assistant). */
  lastConvAt: number | null
  /** Last main user-side line (prompt, tool result, interrupt) or turn-end marker. */
  lastInputAt: number | null
  prompts: number
  turns: number
  turnStartedAt: number | null
  assistants: number
  /** The last few assistant message ids, to count streamed lines once. */
  ids: string[]
  last: LastKind
  lastOff: number
  /** Open tool_use calls by id. */
  open: Record<string, OpenTool>
  /** Open background shells by id. */
  bg: string[]
  /**
   * Background (async) subagents launched and not yet reported finished, by agent id. Kept apart
   * from shells: a subagent is a child session of its own, and speaks for itself (child_producing).
   * Optional: states stored before it was added lack it.
   */
  agents?: string[]
  /** When the last `system`/`turn_duration` line was written, and its `pendingBackgroundAgentCount`. */
  endAt?: number | null
  pendingAgents?: number
  bgOff: number
  /**
   * When a task notification (a queued one) reported the last open background task finished with
   * a result, and nothing of the agent's has followed it: the turn the result should start has not.
   * Optional: states stored before it was added lack it.
   */
  doneAt?: number | null
  queued: number
  queuedOff: number
  error: Block | null
  text: string | null
  textId: string | null
  textOff: number
  /** The prompt that started the current turn and the tools it used (for a settle classifier; optional: older states lack them). */
  lastPrompt?: string | null
  turnTools?: string[]
  /** A slash command waiting to show whether it reached the model. */
  cmd: {at: number | null; off: number} | null
  /** Byte offset of the line each fact came from. */
  src: Record<string, number>
}

export const RECENT_IDS = 8
export const MAX_OPEN = 64
export const MAX_BG = 32
export const ASK_MAX = 500

export function initTranscript(_path: string, match: FileMatch & {kind: 'jsonl'}): TranscriptState {
  return {
    ai: null,
    assistants: 0,
    bg: [],
    bgOff: 0,
    cmd: null,
    createdAt: null,
    custom: null,
    cwd: null,
    error: null,
    ids: [],
    last: 'none',
    lastActivityAt: null,
    lastConvAt: null,
    lastInputAt: null,
    lastOff: 0,
    lastOutputAt: null,
    model: null,
    open: {},
    prompt: null,
    prompts: 0,
    queued: 0,
    queuedOff: 0,
    sid: null,
    src: {},
    sub: match.role === 'subagent',
    summary: null,
    text: null,
    textId: null,
    textOff: 0,
    turnStartedAt: null,
    turns: 0,
    v: 1,
  }
}

export function later(a: number | null, b: number | null): number | null {
  if (a === null) return b
  if (b === null) return a
  return b > a ? b : a
}

export function setLast(s: TranscriptState, kind: LastKind, off: number): void {
  s.last = kind
  s.lastOff = off
}

export function closeForegroundTools(s: TranscriptState): void {
  s.open = {}
}

export function openBackground(s: TranscriptState, id: string, off: number): void {
  if (s.bg.includes(id)) return
  s.bg.push(id)
  if (s.bg.length > MAX_BG) s.bg.shift()
  s.bgOff = off
}

export function closeBackground(s: TranscriptState, id: string, off: number): void {
  const i = s.bg.indexOf(id)
  if (i < 0) return
  s.bg.splice(i, 1)
  s.bgOff = off
}

export function openAgent(s: TranscriptState, id: string): void {
  const agents = s.agents ?? []
  if (agents.includes(id)) return
  s.agents = [...agents, id].slice(-MAX_BG)
}

export function closeAgent(s: TranscriptState, id: string): void {
  if (s.agents?.includes(id)) s.agents = s.agents.filter((a) => a !== id)
}

/** A finish notification: when it leaves no background work open and hands a result, the result waits for a turn. */
export function finishNoted(s: TranscriptState, result: boolean, at: number | null, off: number): void {
  if (!result || at === null || s.bg.length > 0 || (s.agents?.length ?? 0) > 0) return
  s.doneAt = at
  s.src['backgroundDoneAt'] = off
}

/** The agent took the result up (a wake line, a delivered attachment, a prompt, its own line). */
export function finishTaken(s: TranscriptState, off: number): void {
  if (s.doneAt == null) return
  s.doneAt = null
  s.src['backgroundDoneAt'] = off
}

export function countAssistant(s: TranscriptState, id: string | null, off: number): void {
  if (id !== null && s.ids.includes(id)) return
  s.assistants += 1
  s.src['messages'] = off
  if (id === null) return
  s.ids.push(id)
  if (s.ids.length > RECENT_IDS) s.ids.shift()
}

/** A slash command whose next line is the model's reply started a turn. */
export function commandReachedModel(s: TranscriptState): void {
  if (s.cmd === null) return
  s.prompts += 1
  s.turns += 1
  s.turnStartedAt = s.cmd.at
  s.src['turnIndex'] = s.cmd.off
  s.src['turnStartedAt'] = s.cmd.off
  s.src['messages'] = s.cmd.off
  s.cmd = null
}
