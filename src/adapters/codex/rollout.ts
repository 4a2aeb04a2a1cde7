/**
 * Resumable parser for Codex rollout files (agent-formats §2.2, §2.3).
 *
 * Two layouts are read:
 * - current: every line is `{timestamp, type, payload}` with type session_meta, turn_context,
 *   response_item, event_msg, compacted (unknown types are ignored);
 * - older (before ~Aug 2025): a bare first line `{id, timestamp, instructions, git}`, then
 *   `{record_type: "state"}` lines and bare response items with no envelope and no timestamps.
 *
 * The state is a handful of scalars plus two short capped arrays, so it stays small however long
 * the file grows; it is plain JSON so the engine can persist it between runs.
 */
import type {FileMatch, JsonRecord, Contribution, JsonlParser} from '../../core/ingest/adapter.js'
import type {FactSource, HardBlock, SessionFacts} from '../../core/model/types.js'
import {clip, contentText, firstLine, isInjected, isRecord, later, oneLine, str, toMs} from './text.js'
import type {Json} from './text.js'

/** At most this many unanswered tool calls are remembered (older builds only need the count). */
const MAX_OPEN_CALLS = 64
/** Per-turn message counts kept for thread_rolled_back. */
const MAX_RECENT_TURNS = 32
const MAX_ASSISTANT_TEXT = 4000
const MAX_ERROR_TEXT = 500

/** Per-turn message tally: [user event_msg, user response_item, assistant event_msg, assistant response_item]. */
type Tally = [number, number, number, number]

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
}

/** event_msg types that show the session moving (used to order hook events against the file). */
const PROGRESS_EVENTS = new Set([
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

function tallyCount(t: Tally): number {
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

function touch(s: RolloutState, at: number | null, offset: number, progress: boolean): void {
  if (at === null) return
  if (s.lastActivityAt === null || at >= s.lastActivityAt) {
    s.lastActivityAt = at
    s.src.lastActivityAt = offset
  }

  if (progress) s.progressAt = later(s.progressAt, at)
}

function output(s: RolloutState, at: number | null, offset: number): void {
  if (at === null) return
  if (s.lastOutputAt === null || at >= s.lastOutputAt) {
    s.lastOutputAt = at
    s.src.lastOutputAt = offset
  }
}

/** The older builds' "turn ended": the last item is an assistant message and no call is unanswered. */
function repliedAndIdle(s: RolloutState): boolean {
  return s.lastItemAssistant && s.openCalls.length === 0
}

function startTurn(s: RolloutState, at: number | null, offset: number): void {
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
  s.src.turnIndex = offset
  s.src.turnStartedAt = offset
  s.src.settled = offset
}

function endTurn(s: RolloutState, offset: number): void {
  s.turnOpen = false
  s.openCalls = []
  s.src.settled = offset
}

function prompt(s: RolloutState, text: string, via: 'event' | 'item', at: number | null, offset: number): void {
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

function reply(s: RolloutState, text: string, via: 'event' | 'item', at: number | null, offset: number): void {
  s.cur[via === 'event' ? 2 : 3] += 1
  s.src.messages = offset
  const trimmed = text.trim()
  if (trimmed.length > 0) {
    s.lastAssistantText = clip(trimmed, MAX_ASSISTANT_TEXT)
    s.src.lastAssistantText = offset
  }

  output(s, at, offset)
}

function closeBackground(s: RolloutState, match: (b: [string, string]) => boolean, offset: number): void {
  const before = s.background?.length ?? 0
  s.background = (s.background ?? []).filter((b) => !match(b))
  if (s.background.length !== before) s.src.backgroundWork = offset
}

function openCall(s: RolloutState, callId: unknown): void {
  if (typeof callId !== 'string' || s.openCalls.includes(callId)) return
  s.openCalls.push(callId)
  if (s.openCalls.length > MAX_OPEN_CALLS) s.openCalls.shift()
}

function closeCall(s: RolloutState, callId: unknown): void {
  if (typeof callId !== 'string') return
  const i = s.openCalls.indexOf(callId)
  if (i >= 0) s.openCalls.splice(i, 1)
}

function sessionMeta(s: RolloutState, p: Json, at: number | null, offset: number): void {
  // Forked threads copy the parent's history, its session_meta included: the first one is ours.
  if (s.metaSeen) return
  s.metaSeen = true
  s.createdAt = toMs(p.timestamp) ?? at
  s.src.createdAt = offset
  const cwd = str(p.cwd)
  if (cwd !== null) {
    s.cwd = cwd
    s.src.cwd = offset
  }

  const model = str(p.model)
  if (model !== null && s.model === null) {
    s.model = model
    s.src.model = offset
  }

  const source = p.source
  let parent = str(p.parent_thread_id)
  if (isRecord(source) && 'subagent' in source) {
    const sub = source.subagent
    if (typeof sub === 'string') {
      s.subagent = sub
    } else if (isRecord(sub)) {
      const kind = Object.keys(sub)[0] ?? 'subagent'
      s.subagent = kind
      const detail = sub[kind]
      if (isRecord(detail)) parent = str(detail.parent_thread_id) ?? parent
    } else {
      s.subagent = 'subagent'
    }

    s.src.subagent = offset
  } else if (parent !== null) {
    s.subagent = 'subagent'
    s.src.subagent = offset
  }

  if (parent !== null) {
    s.parentNativeId = parent
    s.src.parentNativeId = offset
  }

  const forked = str(p.forked_from_id)
  if (forked !== null) {
    s.forkedFrom = forked
    s.src.forkedFrom = offset
  }
}

function turnContext(s: RolloutState, p: Json, offset: number): void {
  const model = str(p.model)
  if (model !== null) {
    s.model = model
    s.src.model = offset
  }

  const cwd = str(p.cwd)
  if (cwd !== null) {
    s.cwd = cwd
    s.src.cwd = offset
  }

  const turnId = str(p.turn_id)
  if (turnId !== null && s.turnOpen && s.turnId === null) s.turnId = turnId
}

function responseItem(s: RolloutState, p: Json, at: number | null, offset: number): void {
  switch (p.type) {
    case 'message': {
      const text = contentText(p.content)
      if (p.role === 'user') {
        prompt(s, text, 'item', at, offset)
      } else if (p.role === 'assistant') {
        reply(s, text, 'item', at, offset)
        s.lastItemAssistant = true
      }

      return
    }

    case 'function_call':
    case 'custom_tool_call':
    case 'local_shell_call': {
      openCall(s, p.call_id)
      s.lastItemAssistant = false
      output(s, at, offset)
      return
    }

    case 'function_call_output':
    case 'custom_tool_call_output': {
      closeCall(s, p.call_id)
      s.lastItemAssistant = false
      const out = typeof p.output === 'string' ? p.output : ''
      const running = /Process running with session ID (\d+)/.exec(out)
      if (running && typeof p.call_id === 'string') {
        const list = (s.background ??= [])
        if (!list.some(([c]) => c === p.call_id)) list.push([p.call_id, running[1]!])
        if (list.length > MAX_OPEN_CALLS) list.shift()
        s.src.backgroundWork = offset
      } else if (s.background && s.background.length > 0 && /Process exited with code/.test(out)) {
        // write_stdin polling a background process: its output names the session again.
        const id = /session ID (\d+)/.exec(out)?.[1]
        if (id !== undefined) closeBackground(s, (b) => b[1] === id, offset)
      }

      return
    }

    case 'reasoning':
    case 'web_search_call': {
      s.lastItemAssistant = false
      output(s, at, offset)
      return
    }

    case 'compaction': {
      s.compactions += 1
      s.src.compaction = offset
      return
    }

    default:
      // ghost_snapshot and item types this parser does not know: not part of the turn's shape.
  }
}

function rollBack(s: RolloutState, turns: number, offset: number): void {
  let n = Math.max(0, Math.floor(turns))
  s.rolledBackTurns += n
  s.src.messages = offset
  if (n === 0) return
  if (!s.curDropped) {
    s.cur = [0, 0, 0, 0]
    s.curDropped = true
    n -= 1
  }

  while (n > 0 && s.recent.length > 0) {
    s.done -= s.recent.pop() ?? 0
    n -= 1
  }

  if (s.done < 0) s.done = 0
}

function eventMsg(s: RolloutState, p: Json, at: number | null, offset: number): void {
  switch (p.type) {
    case 'task_started': {
      if (s.error) {
        s.error = null
        s.src.error = offset
      }

      // An older-style prompt may already have opened this turn: adopt it rather than count twice.
      if (!(s.turnOpen && !s.turnHasTask && !repliedAndIdle(s))) startTurn(s, at ?? toMs(p.started_at), offset)
      s.turnHasTask = true
      s.turnOpen = true
      s.turnId = str(p.turn_id) ?? s.turnId
      s.src.settled = offset
      return
    }

    case 'task_complete': {
      endTurn(s, offset)
      // 0.169 writes no `error` event: a turn that failed (retries exhausted, 401, 500) just
      // ends, with `error: {message, codex_error_info}` on its task_complete.
      const failed = p.error
      if (isRecord(failed) || typeof failed === 'string') {
        const message = typeof failed === 'string' ? failed : str(failed.message)
        s.error = {at, offset, text: (message === null ? null : oneLine(message, MAX_ERROR_TEXT)) ?? 'error'}
        s.src.error = offset
      }

      const last = str(p.last_agent_message)
      if (last !== null && last.trim().length > 0) {
        s.lastAssistantText = clip(last.trim(), MAX_ASSISTANT_TEXT)
        s.src.lastAssistantText = offset
      }

      return
    }

    case 'turn_aborted': {
      endTurn(s, offset)
      return
    }

    case 'user_message': {
      const kind = p.kind
      if (typeof kind === 'string' && kind !== 'plain') return
      if (typeof p.message === 'string') prompt(s, p.message, 'event', at, offset)
      return
    }

    case 'agent_message': {
      if (typeof p.message === 'string') reply(s, p.message, 'event', at, offset)
      return
    }

    case 'item_completed': {
      // 0.169: the prompt and the reply as items (`UserMessage`, `AgentMessage`), beside their
      // response_item copies; CommandExecution and other items carry no message.
      const item = p.item
      if (!isRecord(item)) return
      if (item.type === 'UserMessage') prompt(s, itemText(item.content), 'event', at, offset)
      else if (item.type === 'AgentMessage') reply(s, itemText(item.content), 'event', at, offset)
      else output(s, at, offset)
      // A command's item completes when the command exits: also a background terminal's, after
      // the turn that started it is over.
      if (item.type === 'CommandExecution' && s.background && s.background.length > 0) {
        closeBackground(s, (b) => b[0] === item.id || (item.process_id !== undefined && b[1] === String(item.process_id)), offset)
      }

      return
    }

    case 'agent_reasoning': {
      output(s, at, offset)
      return
    }

    case 'error': {
      const text = (typeof p.message === 'string' ? oneLine(p.message, MAX_ERROR_TEXT) : null) ?? 'error'
      s.error = {at, offset, text}
      s.src.error = offset
      return
    }

    case 'context_compacted': {
      s.compactions += 1
      s.src.compaction = offset
      return
    }

    case 'thread_rolled_back': {
      rollBack(s, typeof p.num_turns === 'number' ? p.num_turns : 0, offset)
      return
    }

    default:
      // stream_error is a retry in progress, not an error; token_count, warnings, hook runs and
      // anything newer than this parser carry no turn state.
  }
}

/** The text parts of a 0.169 item's content (`[{type: "text"|"Text", text}]`). */
function itemText(content: unknown): string {
  if (!Array.isArray(content)) return typeof content === 'string' ? content : ''
  return content
    .map((part: unknown) => (isRecord(part) && typeof part.text === 'string' ? part.text : ''))
    .filter((t) => t.length > 0)
    .join('\n')
}

/** Feed one line, parsed by the engine (a JSON object; malformed lines never reach here). */
export function feedRollout(s: RolloutState, value: JsonRecord, offset: number): boolean {
  if (typeof value.type === 'string' && 'payload' in value) {
    s.format ??= 'envelope'
    const at = toMs(value.timestamp)
    const payload = value.payload
    if (!isRecord(payload)) {
      touch(s, at, offset, false)
      return true
    }

    switch (value.type) {
      case 'session_meta':
        touch(s, at, offset, false)
        sessionMeta(s, payload, at, offset)
        return true
      case 'turn_context':
        touch(s, at, offset, false)
        turnContext(s, payload, offset)
        return true
      case 'response_item':
        touch(s, at, offset, true)
        responseItem(s, payload, at, offset)
        return true
      case 'event_msg':
        touch(s, at, offset, PROGRESS_EVENTS.has(String(payload.type)))
        eventMsg(s, payload, at, offset)
        return true
      case 'compacted':
        touch(s, at, offset, true)
        s.compactions += 1
        s.src.compaction = offset
        return true
      default:
        touch(s, at, offset, false)
        return true
    }
  }

  // The older layout.
  if ('record_type' in value) return true
  if (typeof value.type === 'string') {
    responseItem(s, value, null, offset)
    return true
  }

  if (!s.metaSeen && typeof value.id === 'string') {
    s.format = 'legacy'
    s.metaSeen = true
    s.createdAt = toMs(value.timestamp)
    s.src.createdAt = offset
    touch(s, s.createdAt, offset, true)
  }

  return true
}

/** Whether the current turn has ended (or no turn ever started). */
export function isSettled(s: RolloutState): boolean {
  if (s.turnIndex === 0) return false
  if (!s.turnOpen) return true
  return !s.turnHasTask && repliedAndIdle(s)
}

export function rolloutContribution(s: RolloutState, path: string, match: FileMatch & {kind: 'jsonl'}): Contribution {
  const at = (offset: number | undefined): FactSource =>
    offset === undefined ? {kind: 'transcript', ref: path} : {kind: 'transcript', offset, ref: path}
  const sources: Record<string, FactSource> = {}
  for (const [fact, offset] of Object.entries(s.src)) sources[fact] = at(offset)
  if (match.role === 'archived') sources.archived = {kind: 'transcript', ref: path}
  const error: HardBlock | null = s.error ? {at: s.error.at ?? s.lastActivityAt ?? 0, source: at(s.error.offset), text: s.error.text} : null
  const facts: Partial<SessionFacts> = {
    backgroundWork: s.background?.length ?? 0,
    createdAt: s.createdAt,
    cwd: s.cwd,
    error,
    lastActivityAt: s.lastActivityAt,
    lastAssistantText: s.lastAssistantText,
    lastOutputAt: s.lastOutputAt,
    messages: s.done + (s.curDropped ? 0 : tallyCount(s.cur)),
    model: s.model,
    parentNativeId: s.parentNativeId,
    settled: isSettled(s),
    sources,
    title: s.title,
    turnIndex: s.turnIndex,
    turnStartedAt: s.turnStartedAt,
  }
  return {
    extra: {
      archived: match.role === 'archived',
      codex: 'rollout',
      compactions: s.compactions,
      forkedFrom: s.forkedFrom,
      format: s.format,
      openCalls: s.openCalls.length,
      progressAt: s.progressAt,
      rolledBackTurns: s.rolledBackTurns,
      subagent: s.subagent,
      turnId: s.turnId,
    },
    facts,
    nativeId: match.nativeId,
    priority: 0,
  }
}

export const rolloutParser: JsonlParser<RolloutState> = {
  contributions: (state, path, match) => [rolloutContribution(state, path, match)],
  init: (_path, match) => initRollout(match.nativeId),
  line: feedRollout,
}
