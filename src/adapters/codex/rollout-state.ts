/**
 * The Codex rollout parser's state (docs/agents/codex.md) and the turn steps the line
 * handlers (rollout-lines.ts) take on it. A handful of scalars plus two short capped arrays, so it
 * stays small however long the file grows; plain JSON so the engine can persist it between runs.
 */
import {clip, firstLine, isInjected, later} from './text.js'

/** At most this many unanswered tool calls are remembered (older builds only need the count). */
export const MAX_OPEN_CALLS = 64
/** Per-turn message counts kept for thread_rolled_back. */
export const MAX_RECENT_TURNS = 32
export const MAX_ASSISTANT_TEXT = 4000
export const MAX_ERROR_TEXT = 500

/** Per-turn message tally: [user event_msg, user response_item, assistant event_msg, assistant response_item]. */
export type Tally = [number, number, number, number]

export interface RolloutState {
  readonly v: 1
  nativeId: string
  /** 'envelope' for `{timestamp,type,payload}` lines, 'legacy' for the older bare layout. */
  format: 'envelope' | 'legacy' | null
  metaSeen: boolean
  cwd: string | null
  model: string | null
  title: string | null
  createdAt: number | null
  lastActivityAt: number | null
  /** Last line that shows the turn moving (not token counts, settings or hook bookkeeping). */
  progressAt: number | null
  lastOutputAt: number | null
  parentNativeId: string | null
  /** Subagent kind from session_meta.source (`thread_spawn`, `review`, `compact`, …). */
  subagent: string | null
  forkedFrom: string | null
  turnIndex: number
  turnStartedAt: number | null
  turnId: string | null
  /** A turn has started and has not ended (task_complete / turn_aborted, or an older build's reply). */
  turnOpen: boolean
  /** The open turn was announced by task_started, so only task_complete / turn_aborted end it. */
  turnHasTask: boolean
  /** Older builds: the last turn item written was an assistant message. */
  lastItemAssistant: boolean
  openCalls: string[]
  /**
   * 0.169 background terminals: `[call id, process id]` of an exec_command whose output said
   * `Process running with session ID N`, until its CommandExecution item completes or a
   * write_stdin output says the process exited. Absent in states saved by older builds.
   */
  background?: [string, string][]
  /** Messages in finished turns (rolled-back turns taken out). */
  done: number
  /** Tally of the current turn. */
  cur: Tally
  /** The current tally belongs to a rolled-back turn: do not keep it when the next turn starts. */
  curDropped: boolean
  /** Message counts of the last finished turns, newest last. */
  recent: number[]
  error: {text: string; at: number | null; offset: number} | null
  lastAssistantText: string | null
  compactions: number
  rolledBackTurns: number
  /** Fact name -> byte offset of the line it came from. */
  src: Record<string, number>
  /** The turn's `approval_policy` (turn_context). Absent in states saved by older builds. */
  approvalPolicy?: string | null
  /**
   * An open `exec_command` asking to run outside the sandbox (`sandbox_permissions:
   * "require_escalated"`), until its output or the turn's end. Absent in older states.
   */
  escalated?: {call: string; cmd: string; at: number | null; offset: number} | null
}

/** event_msg types that show the session moving (used to order hook events against the file). */
export const PROGRESS_EVENTS = new Set([
  'agent_message',
  'agent_reasoning',
  'context_compacted',
  'error',
  'exec_command_end',
  'item_completed',
  'mcp_tool_call_end',
  'patch_apply_end',
  'task_complete',
  'task_started',
  'thread_rolled_back',
  'turn_aborted',
  'user_message',
  'web_search_end',
])

export function tallyCount(t: Tally): number {
  // A prompt or reply is written both as an event_msg and as a response_item in builds that
  // persist both; the larger count is the number of distinct messages.
  return Math.max(t[0], t[1]) + Math.max(t[2], t[3])
}

export function initRollout(nativeId: string): RolloutState {
  return {
    compactions: 0,
    createdAt: null,
    cur: [0, 0, 0, 0],
    curDropped: false,
    cwd: null,
    done: 0,
    error: null,
    forkedFrom: null,
    format: null,
    lastActivityAt: null,
    lastAssistantText: null,
    lastItemAssistant: false,
    lastOutputAt: null,
    metaSeen: false,
    model: null,
    nativeId,
    openCalls: [],
    parentNativeId: null,
    progressAt: null,
    recent: [],
    rolledBackTurns: 0,
    src: {},
    subagent: null,
    title: null,
    turnHasTask: false,
    turnId: null,
    turnIndex: 0,
    turnOpen: false,
    turnStartedAt: null,
    v: 1,
  }
}

export function touch(s: RolloutState, at: number | null, offset: number, progress: boolean): void {
  if (at === null) return
  if (s.lastActivityAt === null || at >= s.lastActivityAt) {
    s.lastActivityAt = at
    s.src.lastActivityAt = offset
  }

  if (progress) s.progressAt = later(s.progressAt, at)
}

export function output(s: RolloutState, at: number | null, offset: number): void {
  if (at === null) return
  if (s.lastOutputAt === null || at >= s.lastOutputAt) {
    s.lastOutputAt = at
    s.src.lastOutputAt = offset
  }
}

/** The older builds' "turn ended": the last item is an assistant message and no call is unanswered. */
export function repliedAndIdle(s: RolloutState): boolean {
  return s.lastItemAssistant && s.openCalls.length === 0
}

export function startTurn(s: RolloutState, at: number | null, offset: number): void {
  if (!s.curDropped) {
    const n = tallyCount(s.cur)
    s.done += n
    s.recent.push(n)
    if (s.recent.length > MAX_RECENT_TURNS) s.recent.shift()
  }

  s.cur = [0, 0, 0, 0]
  s.curDropped = false
  s.turnIndex += 1
  s.turnStartedAt = at
  s.turnOpen = true
  s.turnHasTask = false
  s.turnId = null
  s.lastItemAssistant = false
  s.openCalls = []
  s.escalated = null
  s.src.turnIndex = offset
  s.src.turnStartedAt = offset
  s.src.settled = offset
}

export function endTurn(s: RolloutState, offset: number): void {
  s.turnOpen = false
  s.openCalls = []
  s.escalated = null
  s.src.settled = offset
}

export function prompt(s: RolloutState, text: string, via: 'event' | 'item', at: number | null, offset: number): void {
  if (isInjected(text)) return
  // A prompt opens a turn unless one is already running (task_started came first, or the
  // older build has not replied yet: then it is the same prompt written twice, or a steer).
  if (!s.turnOpen || (!s.turnHasTask && repliedAndIdle(s))) startTurn(s, at, offset)
  s.lastItemAssistant = false
  if (s.error) {
    s.error = null
    s.src.error = offset
  }

  s.cur[via === 'event' ? 0 : 1] += 1
  s.src.messages = offset
  if (s.title === null) {
    const title = firstLine(text)
    if (title !== null) {
      s.title = title
      s.src.title = offset
    }
  }
}

export function reply(s: RolloutState, text: string, via: 'event' | 'item', at: number | null, offset: number): void {
  s.cur[via === 'event' ? 2 : 3] += 1
  s.src.messages = offset
  const trimmed = text.trim()
  if (trimmed.length > 0) {
    s.lastAssistantText = clip(trimmed, MAX_ASSISTANT_TEXT)
    s.src.lastAssistantText = offset
  }

  output(s, at, offset)
}

export function closeBackground(s: RolloutState, match: (b: [string, string]) => boolean, offset: number): void {
  const before = s.background?.length ?? 0
  s.background = (s.background ?? []).filter((b) => !match(b))
  if (s.background.length !== before) s.src.backgroundWork = offset
}

export function openCall(s: RolloutState, callId: unknown): void {
  if (typeof callId !== 'string' || s.openCalls.includes(callId)) return
  s.openCalls.push(callId)
  if (s.openCalls.length > MAX_OPEN_CALLS) s.openCalls.shift()
}

export function closeCall(s: RolloutState, callId: unknown): void {
  if (typeof callId !== 'string') return
  if (s.escalated?.call === callId) s.escalated = null
  const i = s.openCalls.indexOf(callId)
  if (i >= 0) s.openCalls.splice(i, 1)
}
