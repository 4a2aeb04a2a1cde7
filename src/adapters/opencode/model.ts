/**
 * OpenCode's session, message and part records as cast needs them, and the one pure function that
 * turns them into facts (docs/agents/opencode.md). Both sources — the SQLite database (≥ 1.2) and
 * the older storage/ JSON files — reduce to these shapes first, so they can never disagree.
 *
 * How to tell, from the files alone:
 * - settled: the last message is an assistant message with `time.completed` set and a `finish`
 *   other than "tool-calls" (the loop goes on after a tool step), and none of its tool parts is
 *   pending or running; an assistant `error` also ends the turn (MessageAbortedError is the user's
 *   interrupt: settled, not an error);
 * - working: a prompt with no reply yet, a reply without `time.completed`, a "tool-calls" step,
 *   a pending or running tool part, or `session.time_compacting` set;
 * - question: a running `question` tool part (OpenCode holds the ask in memory; the part stays
 *   running until the user answers);
 * - error: the last assistant's named error (APIError, ProviderAuthError, …) with its message;
 * - a rejected permission ends the turn: 1.18.33 leaves the step at `finish: "tool-calls"` with the
 *   tool part `error: "The user rejected permission to use this specific tool call."` and asks the
 *   model nothing more (observed: no further request, the TUI back at its prompt): settled.
 * Permission prompts live only in the server's memory: the files cannot show them (a tool waiting
 * for permission looks like a running tool).
 */
import type {FactSource, HardBlock, SessionFacts} from '../../core/model/types.js'

export interface OcSession {
  readonly id: string
  readonly parentId: string | null
  readonly directory: string | null
  readonly title: string | null
  readonly created: number | null
  readonly updated: number | null
  readonly compacting: number | null
  readonly archived: number | null
  /** `session.model.id`, the model the session was last set to. */
  readonly model: string | null
  readonly version: string | null
}

export interface OcMessage {
  readonly id: string
  readonly role: string
  readonly created: number | null
  /** Last write of the row (SQLite `time_updated`), else the latest time the record names. */
  readonly updated: number | null
  readonly completed: number | null
  readonly finish: string | null
  readonly errorName: string | null
  readonly errorText: string | null
  /** Assistant `modelID`, or a user message's `model.modelID`. */
  readonly modelID: string | null
  readonly providerID: string | null
  /** An assistant compaction summary (`summary: true`). */
  readonly summary: boolean
}

export interface OcPart {
  readonly id: string
  readonly messageId: string
  readonly type: string
  readonly tool: string | null
  /** Tool state: pending | running | completed | error. */
  readonly status: string | null
  /** Text of a text part (clipped), or the first question of a `question` tool. */
  readonly text: string | null
  readonly synthetic: boolean
  readonly at: number | null
  /** A tool part that ended in error: its error text (clipped). */
  readonly error?: string | null
}

/** Where each record came from, for `cast explain`. */
export interface OcRefs {
  session(id: string): FactSource
  message(id: string): FactSource
  part(id: string): FactSource
}

export interface OcInput {
  readonly session: OcSession
  /** Every message of the session, any order. */
  readonly messages: readonly OcMessage[]
  /** Parts of the last assistant message (others are ignored). */
  readonly parts: readonly OcPart[]
  /** Text of the first prompt, for sessions whose title is still OpenCode's placeholder. */
  readonly firstPrompt: string | null
  readonly refs: OcRefs
  readonly parseErrors: number
}

export interface OcSummary {
  readonly facts: SessionFacts
  /** Why the turn reads as it does (prompt, streaming, tool_calls, tool_running, compacting, stop, aborted, error, …). */
  readonly tail: string
  readonly providerID: string | null
  readonly finish: string | null
  readonly compactions: number
}

export const MAX_ASSISTANT_TEXT = 4000
const MAX_ERROR_TEXT = 500

/** OpenCode's placeholder titles, before (or instead of) a generated one. */
const PLACEHOLDER_TITLE = /^(?:New session|Child session) - \d{4}-\d{2}-\d{2}T/

export function isPlaceholderTitle(title: string): boolean {
  return PLACEHOLDER_TITLE.test(title)
}

/** Readable names for errors that carry no message of their own. */
const ERROR_TEXT: Record<string, string> = {
  ContextOverflowError: 'Context window exceeded',
  MessageOutputLengthError: 'Output length limit reached',
  ProviderAuthError: 'Provider authentication failed',
  StructuredOutputError: 'Structured output failed',
  UnknownError: 'Unknown error',
}

export function errorText(name: string, message: string | null): string {
  const text = message?.replace(/\s+/g, ' ').trim()
  const out = text && text.length > 0 ? text : (ERROR_TEXT[name] ?? name)
  return out.length > MAX_ERROR_TEXT ? `${out.slice(0, MAX_ERROR_TEXT - 1)}…` : out
}

export function firstLine(text: string, max = 200): string | null {
  for (const line of text.split(/\r?\n/)) {
    const clean = line.replace(/\s+/g, ' ').trim()
    if (clean.length > 0) return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean
  }

  return null
}

function later(a: number | null, b: number | null): number | null {
  if (a === null) return b
  if (b === null) return a
  return b > a ? b : a
}

/** Message order: by creation time, then by id (OpenCode ids sort by time too). */
export function byTime(a: OcMessage, b: OcMessage): number {
  const ta = a.created ?? 0
  const tb = b.created ?? 0
  if (ta !== tb) return ta - tb
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function str(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}

/** A message record (`MessageV2.Info`, as stored in `message.data` or a storage/ file), or null when it has no role. */
export function messageRecord(id: string, j: Record<string, unknown>): OcMessage | null {
  const role = str(j.role)
  if (role === null) return null
  const time = isRecord(j.time) ? j.time : {}
  const error = isRecord(j.error) ? j.error : null
  const data = error && isRecord(error.data) ? error.data : null
  const user = isRecord(j.model) ? j.model : null
  const created = num(time.created)
  const completed = num(time.completed)
  return {
    completed,
    created,
    errorName: error ? (str(error.name) ?? 'UnknownError') : null,
    errorText: data ? str(data.message) : null,
    finish: str(j.finish),
    id,
    modelID: str(j.modelID) ?? (user ? str(user.modelID) : null),
    providerID: str(j.providerID) ?? (user ? str(user.providerID) : null),
    role,
    summary: role === 'assistant' && j.summary === true,
    updated: num(time.updated) ?? completed ?? created,
  }
}

const ACTIVE_TOOL = new Set(['pending', 'running'])
/** The tool error OpenCode writes when the user rejects a permission (1.18.33). */
const REJECTED = /^The user rejected permission to use this/

/** The turn: settled or not and how it ended (the tail), the error and the open question. */
function turnOf(
  input: OcInput,
  last: OcMessage | null,
  lastAssistant: OcMessage | null,
  parts: readonly OcPart[],
  sources: Record<string, FactSource>,
): {settled: boolean; tail: string; error: HardBlock | null; question: HardBlock | null} {
  const {refs, session} = input
  const sessionRef = refs.session(session.id)
  let settled = false
  let tail = 'empty'
  let error: HardBlock | null = null
  let question: HardBlock | null = null
  const active = parts.filter((p) => p.type === 'tool' && p.status !== null && ACTIVE_TOOL.has(p.status))
  const asking = active.find((p) => p.tool === 'question' && p.status === 'running')
  if (asking) {
    question = {at: asking.at ?? lastAssistant?.created ?? 0, source: refs.part(asking.id), text: asking.text ?? 'question'}
  }

  if (session.compacting !== null && session.compacting > 0) {
    tail = 'compacting'
    sources.settled = sessionRef
    sources.compaction = sessionRef
  } else if (last === null) {
    tail = 'empty'
  } else if (last.role === 'user') {
    tail = 'prompt'
    sources.settled = refs.message(last.id)
  } else {
    sources.settled = refs.message(last.id)
    if (last.errorName === 'MessageAbortedError') {
      settled = true
      tail = 'aborted'
    } else if (last.errorName !== null) {
      settled = true
      tail = 'error'
      error = {
        at: last.completed ?? last.updated ?? last.created ?? 0,
        source: refs.message(last.id),
        text: errorText(last.errorName, last.errorText),
      }
      sources.error = error.source
    } else if (active.length > 0) {
      tail = 'tool_running'
      sources.settled = refs.part(active[0]!.id)
    } else if (last.completed === null) {
      tail = 'streaming'
    } else if (
      last.finish === 'tool-calls' &&
      parts.some((p) => p.type === 'tool' && p.status === 'error' && REJECTED.test(p.error ?? ''))
    ) {
      settled = true
      tail = 'rejected'
    } else if (last.finish === 'tool-calls') {
      tail = 'tool_calls'
    } else {
      settled = true
      tail = last.finish ?? 'completed'
    }
  }
  return {error, question, settled, tail}
}

/** Title: OpenCode's own (generated or renamed), else the first prompt while it is a placeholder. */
function titleOf(input: OcInput, messages: readonly OcMessage[], sources: Record<string, FactSource>): string | null {
  const {refs, session} = input
  const sessionRef = refs.session(session.id)
  let title = session.title?.trim() || null
  if (title !== null && isPlaceholderTitle(title)) title = null
  if (title !== null) sources.title = sessionRef
  else if (input.firstPrompt !== null) {
    title = input.firstPrompt
    const firstUser = messages.find((m) => m.role === 'user')
    if (firstUser) sources.title = refs.message(firstUser.id)
  }
  return title
}

/** The model: the last reply's, else the last prompt's, else the session's. */
function modelOf(
  input: OcInput,
  lastUser: OcMessage | null,
  lastAssistant: OcMessage | null,
  sources: Record<string, FactSource>,
): {model: string | null; providerID: string | null} {
  const {refs, session} = input
  let model: string | null = null
  let providerID: string | null = null
  if (lastAssistant?.modelID) {
    model = lastAssistant.modelID
    providerID = lastAssistant.providerID
    sources.model = refs.message(lastAssistant.id)
  } else if (lastUser?.modelID) {
    model = lastUser.modelID
    providerID = lastUser.providerID
    sources.model = refs.message(lastUser.id)
  } else if (session.model !== null) {
    model = session.model
    sources.model = refs.session(session.id)
  }
  return {model, providerID}
}

/** The newest reply's text and when it last wrote output. */
function replyOf(
  parts: readonly OcPart[],
  lastAssistant: OcMessage | null,
  refs: OcRefs,
  sources: Record<string, FactSource>,
): {lastAssistantText: string | null; lastOutputAt: number | null} {
  const text = parts
    .filter((p) => p.type === 'text' && !p.synthetic && p.text !== null)
    .map((p) => p.text!.trim())
    .filter((t) => t.length > 0)
    .join('\n')
  const lastAssistantText = text.length > 0 ? (text.length > MAX_ASSISTANT_TEXT ? `${text.slice(0, MAX_ASSISTANT_TEXT - 1)}…` : text) : null
  if (lastAssistantText !== null && lastAssistant) sources.lastAssistantText = refs.message(lastAssistant.id)

  let lastOutputAt: number | null = null
  if (lastAssistant) {
    lastOutputAt = lastAssistant.completed ?? later(lastAssistant.created, lastAssistant.updated)
    for (const p of parts) lastOutputAt = later(lastOutputAt, p.at)
    sources.lastOutputAt = refs.message(lastAssistant.id)
  }
  return {lastAssistantText, lastOutputAt}
}

export function summarize(input: OcInput): OcSummary {
  const {refs, session} = input
  const messages = [...input.messages].filter((m) => m.role === 'user' || m.role === 'assistant').sort(byTime)
  const sources: Record<string, FactSource> = {}
  const sessionRef = refs.session(session.id)
  let users = 0
  let assistants = 0
  let compactions = 0
  let lastUser: OcMessage | null = null
  let lastAssistant: OcMessage | null = null
  let lastActivityAt = session.updated
  for (const m of messages) {
    if (m.role === 'user') {
      users += 1
      lastUser = m
    } else {
      assistants += 1
      lastAssistant = m
      if (m.summary) compactions += 1
    }

    lastActivityAt = later(lastActivityAt, later(m.created, m.updated))
  }

  const last = messages.at(-1) ?? null
  const parts = lastAssistant ? input.parts.filter((p) => p.messageId === lastAssistant.id) : []
  for (const p of parts) lastActivityAt = later(lastActivityAt, p.at)

  const {error, question, settled, tail} = turnOf(input, last, lastAssistant, parts, sources)
  if (question) sources.question = question.source

  const title = titleOf(input, messages, sources)
  const {model, providerID} = modelOf(input, lastUser, lastAssistant, sources)

  const {lastAssistantText, lastOutputAt} = replyOf(parts, lastAssistant, input.refs, sources)

  if (session.directory !== null) sources.cwd = sessionRef
  if (session.created !== null) sources.createdAt = sessionRef
  if (session.parentId !== null) sources.parentNativeId = sessionRef
  if (last) sources.messages = refs.message(last.id)
  if (lastUser) {
    sources.turnIndex = refs.message(lastUser.id)
    sources.turnStartedAt = refs.message(lastUser.id)
  }

  sources.lastActivityAt = last && (later(last.created, last.updated) ?? 0) >= (session.updated ?? 0) ? refs.message(last.id) : sessionRef
  if (session.archived !== null && session.archived > 0) sources.archived = sessionRef
  if (compactions > 0 && !sources.compaction) {
    const summary = [...messages].reverse().find((m) => m.summary)
    if (summary) sources.compaction = refs.message(summary.id)
  }

  const facts: SessionFacts = {
    approval: null,
    backgroundWork: 0,
    createdAt: session.created ?? messages[0]?.created ?? null,
    cwd: session.directory,
    error,
    lastActivityAt,
    lastAssistantText,
    lastOutputAt,
    messages: users + assistants,
    model,
    parentNativeId: session.parentId,
    parseErrors: input.parseErrors,
    process: null,
    question,
    queued: 0,
    settled,
    sources,
    title,
    turnIndex: users,
    turnStartedAt: lastUser?.created ?? null,
  }
  return {compactions, facts, finish: lastAssistant?.finish ?? null, providerID, tail}
}
