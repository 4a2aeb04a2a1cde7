/**
 * The pi session's entry handlers: one entry (parsed once by the engine) in, the parser's state
 * (session-state.ts) updated. The chain is followed by `id`/`parentId`: an entry that does not
 * continue it moved the leaf (a navigation), which ends the turn.
 */
import type {JsonRecord} from '../../core/ingest/adapter.js'
import {sessionIdOf} from './paths.js'
import {clip, contentText, firstLine, hasToolCall, isRecord, later, oneLine, readableError, str, toMs} from './text.js'
import type {Json} from './text.js'
import {MAX_ASSISTANT_TEXT, MAX_ERROR_TEXT, output, type PiState, setTail, touch} from './session-state.js'

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
    'overloaded',
    String.raw`provider.?returned.?error`,
    String.raw`rate.?limit`,
    'too many requests',
    '429',
    '500',
    '502',
    '503',
    '504',
    String.raw`service.?unavailable`,
    String.raw`server.?error`,
    String.raw`internal.?error`,
    String.raw`network.?error`,
    String.raw`connection.?(?:error|refused|lost)`,
    String.raw`websocket.?(?:closed|error)`,
    'other side closed',
    'fetch failed',
    String.raw`upstream.?connect`,
    'reset before headers',
    'socket hang up',
    'ended without',
    'http2 request did not get a response',
    String.raw`timed? out`,
    'timeout',
    'terminated',
    'retry delay',
  ].join('|'),
  'i',
)

export function isRetryableError(message: string): boolean {
  return RETRYABLE.test(message)
}

/**
 * The header format of the pi that retries "terminated" (a stream cut short): 0.73.1 writes
 * `version: 3` (docs/agents/pi.md). A session of an older format is an older pi that cast has not
 * seen retry it.
 */
const RETRIES_TERMINATED_FROM = 3

/**
 * Does the pi that wrote this session retry this error on its own? A header without `version`
 * (format 1, pi from before its retries) retries nothing: its error ends the turn. With no header
 * read, the current pi's rules.
 */
function piRetries(s: PiState, message: string): boolean {
  if (!isRetryableError(message)) return false
  if (!s.header) return true
  if (s.version === null) return false
  return s.version >= RETRIES_TERMINATED_FROM || !/terminated/i.test(message) || RETRYABLE.test(message.replaceAll(/terminated/gi, ''))
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
      const retryable = piRetries(s, raw)
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
      const text =
        said === null ? 'error' : retryable ? oneLine(`Retry failed after ${failed - 1} attempts: ${said}`, MAX_ERROR_TEXT)! : said
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
