/**
 * Resumable parser for pi session files (agent-formats §5.2, §5.3; pi's own
 * `packages/coding-agent/src/core/session-manager.ts`).
 *
 * A file is a header line `{type:"session", version?, id, timestamp, cwd, parentSession?}` then
 * entries. v1 entries carry no ids (the file is a plain list); v2 and v3 entries have `id` and
 * `parentId` and form a tree whose current leaf, when pi loads the file, is the last entry written.
 *
 * Following the leaf without keeping the tree. pi appends every entry as a child of the current
 * leaf, so while nobody moves the leaf each entry's `parentId` is the id of the entry written just
 * before it. The leaf only jumps when the user navigates (`/tree`, branching): pi then writes a
 * `branch_summary`, or simply appends the next entry under an older one. The state therefore keeps
 * the previous entry's id and the turn state of the chain ending at the leaf (`tail`):
 * - a message entry sets the tail itself (a prompt or a tool result: working; an assistant by its
 *   `stopReason`);
 * - a non-message entry (model change, label, session name, compaction, custom data) that continues
 *   the chain leaves it as it was;
 * - an entry that does not continue the chain, or a branch summary, means the user moved the leaf
 *   by hand, which pi only lets them do at the prompt: settled, and any error banner of the old
 *   branch is no longer on screen.
 * So the state is a few scalars however large the file grows, and it is plain JSON.
 *
 * pi writes a message when it ends (message_end), so a reply still streaming is not in the file:
 * a prompt followed by silence reads as a turn in progress, which is what it is. pi 0.73.1 writes
 * no file at all before the first assistant message (SessionManager `_persist` waits for one), so
 * a first turn still running has no file yet.
 *
 * Retries (seen on pi 0.73.1, `AgentSession._handleRetryableError`): every failed request is an
 * assistant entry of its own, `{"content":[],"stopReason":"error","errorMessage":"500 …"}`, and
 * when the error is transient (overloaded, rate limit, 429/5xx, network, timeout…) pi waits 2 s,
 * 4 s, 8 s and continues the turn from it, up to 3 retries. So an error leaf is pi retrying while
 * the run of failed requests is at most 3 long and the error is one pi retries; the fourth, or an
 * error pi does not retry (401, 529 without "overloaded", a bad request), ends the turn: the
 * banner `Retry failed after 3 attempts: …` (on screen only) is the hard block. A failed request
 * with no content is not a message.
 */
import type {Contribution, FileMatch, JsonRecord, JsonlParser} from '../../core/ingest/adapter.js'
import type {FactSource, HardBlock, SessionFacts} from '../../core/model/types.js'
import {sessionIdOf} from './paths.js'
import {clip, contentText, firstLine, hasToolCall, isRecord, later, oneLine, readableError, str, toMs} from './text.js'
import type {Json} from './text.js'

const MAX_ASSISTANT_TEXT = 4000
const MAX_ERROR_TEXT = 500

/** What the chain ending at the current leaf says about the turn. */
export type Tail = 'none' | 'working' | 'settled' | 'error'

export interface PiState {
  readonly v: 1
  nativeId: string
  /** The header line was read. */
  header: boolean
  /** Header `version` (absent in v1 files). */
  version: number | null
  headerId: string | null
  cwd: string | null
  createdAt: number | null
  /** The session this one was forked from (`parentSession`, or v1 `branchedFrom`), as a native id. */
  forkedFrom: string | null
  /** Latest non-empty `session_info.name` (`/name`). */
  name: string | null
  /** First prompt that is more than a lone slash command. */
  firstPrompt: string | null
  /** First prompt of any kind, the title of last resort. */
  firstAny: string | null
  model: string | null
  provider: string | null
  users: number
  assistants: number
  turnIndex: number
  turnStartedAt: number | null
  lastActivityAt: number | null
  lastOutputAt: number | null
  lastAssistantText: string | null
  compactions: number
  /** Id of the entry written just before (null before the first, and in v1 files). */
  prevId: string | null
  tail: Tail
  /** Why the tail is what it is (prompt, tool_use, tool_result, stop, length, aborted, error, navigated, compaction_retry). */
  tailWhy: string | null
  /** The leaf assistant's error, while the tail is 'error'. */
  error: {text: string; at: number | null; offset: number} | null
  /** Failed requests in a row at the end of the chain (pi's retry attempt); absent in older states. */
  failed?: number
  /** Fact name -> byte offset of the line it came from. */
  src: Record<string, number>
}

export function initPi(nativeId: string): PiState {
  return {
    assistants: 0,
    compactions: 0,
    createdAt: null,
    cwd: null,
    error: null,
    failed: 0,
    firstAny: null,
    firstPrompt: null,
    forkedFrom: null,
    header: false,
    headerId: null,
    lastActivityAt: null,
    lastAssistantText: null,
    lastOutputAt: null,
    model: null,
    name: null,
    nativeId,
    prevId: null,
    provider: null,
    src: {},
    tail: 'none',
    tailWhy: null,
    turnIndex: 0,
    turnStartedAt: null,
    users: 0,
    v: 1,
    version: null,
  }
}

function touch(s: PiState, at: number | null, offset: number): void {
  if (at === null) return
  if (s.lastActivityAt === null || at >= s.lastActivityAt) {
    s.lastActivityAt = at
    s.src.lastActivityAt = offset
  }
}

function output(s: PiState, at: number | null, offset: number): void {
  if (at === null) return
  if (s.lastOutputAt === null || at >= s.lastOutputAt) {
    s.lastOutputAt = at
    s.src.lastOutputAt = offset
  }
}

function setTail(s: PiState, tail: Tail, why: string, offset: number): void {
  s.tail = tail
  s.tailWhy = why
  s.failed = 0
  s.src.settled = offset
  if (tail !== 'error' && s.error !== null) {
    s.error = null
    s.src.error = offset
  }
}

function header(s: PiState, e: Json, at: number | null, offset: number): void {
  if (s.header) return
  s.header = true
  s.version = typeof e.version === 'number' ? e.version : null
  s.headerId = str(e.id)
  s.createdAt = at
  s.src.createdAt = offset
  const cwd = str(e.cwd)
  if (cwd !== null) {
    s.cwd = cwd
    s.src.cwd = offset
  }

  // v1 headers named the model the session started with.
  const modelId = str(e.modelId)
  if (modelId !== null && s.model === null) {
    s.model = modelId
    s.provider = str(e.provider)
    s.src.model = offset
  }

  const parent = str(e.parentSession) ?? str(e.branchedFrom)
  if (parent !== null) {
    s.forkedFrom = sessionIdOf(parent) ?? parent
    s.src.forkedFrom = offset
  }
}

/** A bare `/command` (no argument text): a UI command, not what the session is about. */
function isSlashOnly(text: string): boolean {
  return /^\/\S+$/.test(text.trim())
}

function prompt(s: PiState, m: Json, at: number | null, offset: number): void {
  s.users += 1
  s.turnIndex += 1
  s.turnStartedAt = toMs(m.timestamp) ?? at
  s.src.messages = offset
  s.src.turnIndex = offset
  s.src.turnStartedAt = offset
  setTail(s, 'working', 'prompt', offset)
  const title = firstLine(contentText(m.content))
  if (title === null) return
  if (s.firstAny === null) {
    s.firstAny = title
    s.src.firstAny = offset
  }

  if (s.firstPrompt === null && !isSlashOnly(title)) {
    s.firstPrompt = title
    s.src.firstPrompt = offset
  }
}

/** pi's own retry limit (`retry.maxRetries`, default 3). */
export const PI_MAX_RETRIES = 3

/**
 * Errors pi 0.73.1 retries on its own (`_isRetryableError`): overload, rate limits, 429 and
 * 500/502/503/504, server and network errors, timeouts, a stream that ended early. A context
 * overflow is left to compaction, a 401 or a bad request ends the turn.
 */
const RETRYABLE = new RegExp(
  [
    'overloaded', String.raw`provider.?returned.?error`, String.raw`rate.?limit`, 'too many requests', '429', '500', '502', '503', '504',
    String.raw`service.?unavailable`, String.raw`server.?error`, String.raw`internal.?error`, String.raw`network.?error`, String.raw`connection.?(?:error|refused|lost)`,
    String.raw`websocket.?(?:closed|error)`, 'other side closed', 'fetch failed', String.raw`upstream.?connect`, 'reset before headers', 'socket hang up',
    'ended without', 'http2 request did not get a response', String.raw`timed? out`, 'timeout', 'terminated', 'retry delay',
  ].join('|'),
  'i',
)

export function isRetryableError(message: string): boolean {
  return RETRYABLE.test(message)
}

/** An assistant entry that is only a failed request: an error with nothing said. */
function isFailedRequest(m: Json): boolean {
  return m.stopReason === 'error' && contentText(m.content).trim() === '' && !hasToolCall(m.content)
}

function reply(s: PiState, m: Json, at: number | null, offset: number): void {
  if (!isFailedRequest(m)) {
    s.assistants += 1
    s.src.messages = offset
  }

  output(s, later(at, toMs(m.timestamp)), offset)
  const model = str(m.model)
  if (model !== null) {
    s.model = model
    s.provider = str(m.provider)
    s.src.model = offset
  }

  const text = contentText(m.content).trim()
  if (text.length > 0) {
    s.lastAssistantText = clip(text, MAX_ASSISTANT_TEXT)
    s.src.lastAssistantText = offset
  }

  const stop = str(m.stopReason)
  switch (stop) {
    case 'toolUse': {
      setTail(s, 'working', 'tool_use', offset)
      return
    }

    case 'error': {
      const failed = (s.failed ?? 0) + 1
      const raw = typeof m.errorMessage === 'string' ? m.errorMessage : ''
      const retryable = isRetryableError(raw)
      if (failed <= PI_MAX_RETRIES && retryable) {
        // pi waits and sends the request again: the turn goes on.
        setTail(s, 'working', 'retrying', offset)
        s.failed = failed
        return
      }

      s.tail = 'error'
      s.tailWhy = 'error'
      s.src.settled = offset
      s.failed = failed
      const said = raw === '' ? null : oneLine(readableError(raw), MAX_ERROR_TEXT)
      // What pi's banner says once its retries are spent; an error it does not retry is shown as it is.
      const text = said === null ? 'error' : retryable ? oneLine(`Retry failed after ${failed - 1} attempts: ${said}`, MAX_ERROR_TEXT)! : said
      s.error = {at: later(at, toMs(m.timestamp)), offset, text}
      s.src.error = offset
      return
    }

    case 'stop':
    case 'length':
    case 'aborted': {
      setTail(s, 'settled', stop, offset)
      return
    }

    default: {
      // A stop reason this parser does not know: judge by whether it asks for a tool.
      if (hasToolCall(m.content)) setTail(s, 'working', 'tool_use', offset)
      else setTail(s, 'settled', stop ?? 'stop', offset)
    }
  }
}

function message(s: PiState, m: Json, at: number | null, offset: number, linear: boolean): void {
  switch (m.role) {
    case 'user': {
      prompt(s, m, at, offset)
      return
    }

    case 'assistant': {
      reply(s, m, at, offset)
      return
    }

    case 'toolResult': {
      output(s, at, offset)
      setTail(s, 'working', 'tool_result', offset)
      return
    }

    default:
      // bashExecution (the user's own `!cmd`), custom / hookMessage (extensions), summaries:
      // they start no turn of their own.
      neutral(s, offset, linear)
  }
}

/** An entry that is not a turn step: it keeps the chain's state, unless the leaf moved. */
function neutral(s: PiState, offset: number, linear: boolean): void {
  if (!linear && s.tail !== 'none') setTail(s, 'settled', 'navigated', offset)
}

/** Feed one line, parsed by the engine. Returns false for an entry with no type (counted as malformed). */
export function feedPi(s: PiState, e: JsonRecord, offset: number): boolean {
  if (typeof e.type !== 'string') return false

  const at = toMs(e.timestamp)
  if (e.type === 'session') {
    touch(s, at, offset)
    header(s, e, at, offset)
    return true
  }

  // v1 entries have no ids: a plain list, always continuing the chain.
  const id = str(e.id)
  const linear = id === null || !('parentId' in e) || (e.parentId ?? null) === s.prevId
  touch(s, at, offset)
  switch (e.type) {
    case 'message': {
      const m = e.message
      if (isRecord(m)) {
        touch(s, toMs(m.timestamp), offset)
        message(s, m, at, offset, linear)
      } else {
        neutral(s, offset, linear)
      }

      break
    }

    case 'model_change': {
      const model = str(e.modelId)
      if (model !== null) {
        s.model = model
        s.provider = str(e.provider)
        s.src.model = offset
      }

      neutral(s, offset, linear)
      break
    }

    case 'session_info': {
      const name = typeof e.name === 'string' ? firstLine(e.name) : null
      if (name !== null) {
        s.name = name
        s.src.name = offset
      }

      neutral(s, offset, linear)
      break
    }

    case 'compaction': {
      s.compactions += 1
      s.src.compaction = offset
      // An overflow error followed by a compaction: pi compacts and retries the turn on its own.
      if (linear && s.tail === 'error') setTail(s, 'working', 'compaction_retry', offset)
      else neutral(s, offset, linear)
      break
    }

    case 'branch_summary': {
      if (s.tail !== 'none') setTail(s, 'settled', 'navigated', offset)
      break
    }

    default:
      // thinking_level_change, label, custom, custom_message and anything newer.
      neutral(s, offset, linear)
  }

  if (id !== null) s.prevId = id
  return true
}

/** The turn has ended: the leaf assistant stopped (stop, length, aborted, error) or the user moved the leaf. */
export function isSettled(s: PiState): boolean {
  return s.tail === 'settled' || s.tail === 'error'
}

export function piTitle(s: PiState): {title: string | null; offset: number | undefined} {
  if (s.name !== null) return {offset: s.src.name, title: s.name}
  if (s.firstPrompt !== null) return {offset: s.src.firstPrompt, title: s.firstPrompt}
  return {offset: s.src.firstAny, title: s.firstAny}
}

export function piContribution(s: PiState, path: string, match: FileMatch & {kind: 'jsonl'}): Contribution {
  const at = (offset: number | undefined): FactSource =>
    offset === undefined ? {kind: 'transcript', ref: path} : {kind: 'transcript', offset, ref: path}
  const sources: Record<string, FactSource> = {}
  for (const [fact, offset] of Object.entries(s.src)) {
    if (fact === 'name' || fact === 'firstPrompt' || fact === 'firstAny') continue
    sources[fact] = at(offset)
  }

  const title = piTitle(s)
  if (title.title !== null) sources.title = at(title.offset)
  const error: HardBlock | null =
    s.tail === 'error' && s.error !== null ? {at: s.error.at ?? s.lastActivityAt ?? 0, source: at(s.error.offset), text: s.error.text} : null
  const facts: Partial<SessionFacts> = {
    createdAt: s.createdAt,
    cwd: s.cwd,
    error,
    lastActivityAt: s.lastActivityAt,
    lastAssistantText: s.lastAssistantText,
    lastOutputAt: s.lastOutputAt,
    messages: s.users + s.assistants,
    model: s.model,
    // A fork is a conversation of its own that the user carries on: it stays a row of its own
    // (folding is for subagents). The link is kept in `extra.forkedFrom` and its source.
    parentNativeId: null,
    settled: isSettled(s),
    sources,
    title: title.title,
    turnIndex: s.turnIndex,
    turnStartedAt: s.turnStartedAt,
  }
  return {
    extra: {
      compactions: s.compactions,
      forkedFrom: s.forkedFrom,
      headerId: s.headerId,
      pi: 'session',
      provider: s.provider,
      tail: s.tailWhy,
      version: s.version ?? (s.header ? 1 : null),
    },
    facts,
    nativeId: match.nativeId,
    priority: 0,
  }
}

export const piParser: JsonlParser<PiState> = {
  // A file with neither a header nor a message yet (empty, or only garbage) is no session.
  contributions: (state, path, match) => (state.header || state.users + state.assistants > 0 ? [piContribution(state, path, match)] : []),
  init: (_path, match) => initPi(match.nativeId),
  line: feedPi,
}
