/**
 * The Gemini CLI chat state and how records fold into it (both formats feed the same state; see
 * chat.ts for the formats). It keeps only the last WINDOW messages, each reduced to a few bytes;
 * older ones are folded into counters. A `.jsonl` log is fed line by line (`feedChatLine`, each
 * line parsed once by the engine); a ≤ 0.38 record is read whole (`readLegacy`).
 */
import type {JsonRecord} from '../../core/ingest/adapter.js'
import {clip, firstLine, isObject, later, oneLine, partsText, str, toMs, type Json} from './text.js'

/** Messages kept in the state (older ones are counted, not kept). */
export const WINDOW = 200
const MAX_TEXT = 4000
/** Reply texts kept (the newest first in line for the settle classifier). */
const KEEP_REPLIES = 3

/**
 * u: user prompt, g: model reply, r: tool results sent back (a `user` message of
 * `functionResponse` parts: the model goes on, no prompt), e: error, i: info, w: warning,
 * x: anything else (the injected `<session_context>` message).
 */
type Kind = 'u' | 'g' | 'r' | 'e' | 'i' | 'w' | 'x'

export interface Msg {
  readonly id: string
  readonly k: Kind
  readonly at: number | null
  /** A reply that asks for more: it carries tool calls, or no text. */
  readonly more?: 1
  /** An info notice that a request was cancelled (the turn ended). */
  readonly cancel?: 1
  /** Error text. */
  readonly x?: string
}

export interface ChatState {
  readonly v: 1
  sessionId: string | null
  kind: string | null
  projectHash: string | null
  startTime: number | null
  lastUpdated: number | null
  summary: string | null
  /** The first workspace directory (`directories[0]`): a subagent's, or one added by /dir add. */
  dir0: string | null
  win: Msg[]
  /** Prompts and replies that fell out of the window. */
  foldedMessages: number
  /** Prompts that fell out of the window. */
  foldedTurns: number
  /** The first prompt (the title when there is no summary). */
  prompt: {id: string; text: string} | null
  /** The newest replies with text (a few, so a rewind past the last one still knows the one before). */
  replies: {id: string; text: string}[]
  model: string | null
  /** Newest message or tool-call time (what the conversation itself shows). */
  progressAt: number | null
  /** Newest time a prompt, reply or error was created. */
  messageAt: number | null
  lastOutputAt: number | null
  compactions: number
  checkpoints: number
  rewinds: number
  /** Fact name -> byte offset of the line it came from (log files only). */
  src: Record<string, number>
}

export function initChat(): ChatState {
  return {
    checkpoints: 0,
    compactions: 0,
    dir0: null,
    foldedMessages: 0,
    foldedTurns: 0,
    kind: null,
    lastOutputAt: null,
    lastUpdated: null,
    messageAt: null,
    model: null,
    progressAt: null,
    projectHash: null,
    prompt: null,
    replies: [],
    rewinds: 0,
    sessionId: null,
    src: {},
    startTime: null,
    summary: null,
    v: 1,
    win: [],
  }
}

const KINDS: Readonly<Record<string, Kind>> = {error: 'e', gemini: 'g', info: 'i', user: 'u', warning: 'w'}

/** Text that is no title: slash commands, shell lines, injected context (`<state_snapshot>`, …). */
function isCommand(text: string): boolean {
  const t = text.trimStart()
  return t.startsWith('/') || t.startsWith('!') || t.startsWith('<')
}

/** Gemini CLI 0.61 injects the environment as the first `user` message of a chat (the `$set` checkpoint on line 2). */
const INJECTED = /^\s*<session_context>/

/** A `user` message whose parts are all tool results (`functionResponse`), not a prompt. */
function isToolResults(content: unknown): boolean {
  if (!Array.isArray(content) || content.length === 0) return false
  return (
    content.every((p) => isObject(p) && (isObject(p['functionResponse']) || (typeof p['text'] === 'string' && p['text'].trim() === ''))) &&
    content.some((p) => isObject(p) && isObject(p['functionResponse']))
  )
}

/** What a message record is: a `user` record may be a prompt, tool results or injected context. */
function kindOf(rec: Json, text: string): Kind {
  const k: Kind = KINDS[String(rec['type'])] ?? 'x'
  if (k !== 'u') return k
  if (isToolResults(rec['content'])) return 'r'
  return INJECTED.test(text) ? 'x' : 'u'
}

export function counts(m: Msg): boolean {
  return m.k === 'u' || m.k === 'g'
}

function fold(s: ChatState): void {
  while (s.win.length > WINDOW) {
    const old = s.win.shift()
    if (old === undefined) break
    if (counts(old)) s.foldedMessages += 1
    if (old.k === 'u') s.foldedTurns += 1
  }
}

/** Apply one message record (a new id, or a newer version of one). */
export function applyMessage(s: ChatState, rec: Json, offset: number | undefined): void {
  const id = str(rec['id'])
  if (id === null) return
  const at = toMs(rec['timestamp'])
  const text = partsText(rec['content'])
  const k = kindOf(rec, text)
  let msg: Msg = {at, id, k}

  if (k === 'g') {
    const calls = Array.isArray(rec['toolCalls']) ? rec['toolCalls'].filter(isObject) : []
    let outAt = at
    for (const call of calls) outAt = later(outAt, toMs(call['timestamp']))
    const allCancelled = calls.length > 0 && calls.every((c) => c['status'] === 'cancelled')
    if ((calls.length > 0 && !allCancelled) || text.trim() === '') msg = {...msg, more: 1}
    if (outAt !== null && (s.lastOutputAt === null || outAt >= s.lastOutputAt)) {
      s.lastOutputAt = outAt
      if (offset !== undefined) s.src['lastOutputAt'] = offset
    }

    s.progressAt = later(s.progressAt, outAt)
    const model = str(rec['model'])
    if (model !== null) {
      s.model = model
      if (offset !== undefined) s.src['model'] = offset
    }

    if (text.trim() !== '') {
      s.replies = [...s.replies.filter((r) => r.id !== id), {id, text: clip(text.trim(), MAX_TEXT)}].slice(-KEEP_REPLIES)
      if (offset !== undefined) s.src['lastAssistantText'] = offset
    }
  } else if (k === 'u') {
    if (s.prompt === null && !isCommand(text)) {
      const title = firstLine(text)
      if (title !== null) {
        s.prompt = {id, text: title}
        if (offset !== undefined) s.src['title'] = offset
      }
    }
  } else if (k === 'e') {
    msg = {...msg, x: oneLine(text) ?? 'error'}
  } else if (k === 'i') {
    if (/\bcancel(?:l)?ed\b|\binterrupted\b/i.test(text)) msg = {...msg, cancel: 1}
    if (/compress/i.test(text) && !s.win.some((m) => m.id === id)) {
      s.compactions += 1
      if (offset !== undefined) s.src['compaction'] = offset
    }
  }

  s.progressAt = later(s.progressAt, at)
  if (k === 'u' || k === 'g' || k === 'r' || k === 'e') s.messageAt = later(s.messageAt, at)
  if (offset !== undefined && (k === 'u' || k === 'g')) s.src['messages'] = offset
  if (offset !== undefined && k === 'u') s.src['turnIndex'] = offset
  if (offset !== undefined && (k === 'u' || k === 'g' || k === 'r' || k === 'e' || msg.cancel === 1)) s.src['settled'] = offset

  // The last line per id wins: update in place when the id is still in the window.
  for (let i = s.win.length - 1; i >= 0; i--) {
    if (s.win[i]?.id === id) {
      s.win[i] = msg
      return
    }
  }

  s.win.push(msg)
  fold(s)
}

/** `{"$rewindTo": id}`: drop that message and every later one. */
export function rewindTo(s: ChatState, id: string, offset: number | undefined): void {
  s.rewinds += 1
  const i = s.win.findIndex((m) => m.id === id)
  // Not in the window: either older than it (its place is lost: drop the whole window) or
  // unknown, which Gemini CLI itself reads as "drop everything".
  const removed = i >= 0 ? s.win.splice(i) : s.win.splice(0)
  const gone = new Set(removed.map((m) => m.id))
  if (s.prompt !== null && gone.has(s.prompt.id)) s.prompt = null
  s.replies = s.replies.filter((r) => !gone.has(r.id))
  if (offset !== undefined) {
    s.src['messages'] = offset
    s.src['settled'] = offset
  }
}

/** `{"$set": {…}}` or the metadata line/object. */
export function applyMeta(s: ChatState, patch: Json, offset: number | undefined): void {
  const sessionId = str(patch['sessionId'])
  if (sessionId !== null) s.sessionId = sessionId
  const projectHash = str(patch['projectHash'])
  if (projectHash !== null) s.projectHash = projectHash
  const kind = str(patch['kind'])
  if (kind !== null) s.kind = kind
  const start = toMs(patch['startTime'])
  if (start !== null && s.startTime === null) {
    s.startTime = start
    if (offset !== undefined) s.src['createdAt'] = offset
  }

  const updated = toMs(patch['lastUpdated'])
  if (updated !== null) {
    s.lastUpdated = later(s.lastUpdated, updated)
    if (offset !== undefined) s.src['lastActivityAt'] = offset
  }

  if (typeof patch['summary'] === 'string') {
    s.summary = firstLine(patch['summary'])
    if (offset !== undefined) s.src['summary'] = offset
  }

  const dirs = patch['directories']
  if (Array.isArray(dirs) && typeof dirs[0] === 'string' && dirs[0] !== '') s.dir0 = dirs[0]

  const messages = patch['messages']
  if (Array.isArray(messages)) {
    // A checkpoint: the full list, replacing what came before (history compression, masking).
    s.checkpoints += 1
    if (offset !== undefined) s.src['checkpoint'] = offset
    // The first prompt stays the title: a checkpoint after compression opens with a summary.
    const prompt = s.prompt
    // A checkpoint that only drops messages (Gemini CLI 0.61 after a failed or cancelled request
    // drops the prompt: `info "Request cancelled."`, then a checkpoint without it; after a denied
    // tool it starts over from a new `<session_context>` message) ends that turn; it does not
    // unsay it. Such a checkpoint holds nothing but messages already read and injected context:
    // the messages it drops are kept, so the prompt still counts and the cancel or error notice
    // still settles the turn. Any other checkpoint (compression: a summary replaces history)
    // replaces the list.
    const list = messages.filter(isObject)
    const onlyDrops =
      s.win.length > 0 &&
      list.every((m) => {
        const id = str(m['id'])
        return id !== null && (s.win.some((w) => w.id === id) || kindOf(m, partsText(m['content'])) === 'x')
      })
    if (onlyDrops) {
      for (const m of list) applyMessage(s, m, offset)
    } else {
      s.win = []
      s.foldedMessages = 0
      s.foldedTurns = 0
      s.replies = []
      for (const m of list) applyMessage(s, m, offset)
    }

    if (prompt !== null) s.prompt = prompt
  }
}

/** Feed one line of a `.jsonl` log, parsed by the engine (a JSON object). */
export function feedChatLine(s: ChatState, rec: JsonRecord, offset: number): boolean {
  if (typeof rec['$rewindTo'] === 'string') {
    rewindTo(s, rec['$rewindTo'], offset)
  } else if (isObject(rec['$set'])) {
    applyMeta(s, rec['$set'], offset)
  } else if (typeof rec['id'] === 'string') {
    applyMessage(s, rec, offset)
  } else if (typeof rec['sessionId'] === 'string') {
    applyMeta(s, rec, offset)
  }

  return true
}

/** A legacy (≤ 0.38) conversation record, parsed whole. Throws on a file caught mid-write. */
export function readLegacy(text: string): ChatState {
  const doc = JSON.parse(text) as unknown
  if (!isObject(doc) || typeof doc['sessionId'] !== 'string') throw new Error('not a Gemini conversation record')
  const s = initChat()
  const {messages, ...meta} = doc
  applyMeta(s, meta, undefined)
  if (Array.isArray(messages)) for (const m of messages) if (isObject(m)) applyMessage(s, m, undefined)
  return s
}
