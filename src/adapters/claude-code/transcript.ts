/**
 * Resumable parser for a Claude Code transcript (agent-formats §1.2–1.3).
 *
 * The engine feeds complete lines in order and stores the state as JSON between runs, so the
 * state holds counters, the open tool calls, a few recent message ids and the title candidates:
 * its size does not grow with the file.
 */
import type {Contribution, FileMatch, JsonRecord, JsonlParser} from '../../core/ingest/adapter.js'
import type {FactSource, HardBlock, SessionFacts} from '../../core/model/types.js'
import {
  clip,
  finishedTask,
  isCommand,
  isInjected,
  isInterrupt,
  isLocalOutput,
  isObject,
  isTaskNotification,
  type Json,
  oneLine,
  resultText,
  str,
  textBlocks,
  toMs,
} from './text.js'

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

const SETTLED_KINDS: readonly LastKind[] = ['reply', 'error', 'end', 'interrupt', 'local']

export interface OpenTool {
  readonly name: string
  readonly at: number | null
  readonly off: number
  /** AskUserQuestion / ExitPlanMode: the text of the ask. */
  readonly ask?: string
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

const RECENT_IDS = 8
const MAX_OPEN = 64
const MAX_BG = 32
const ASK_MAX = 500

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

function later(a: number | null, b: number | null): number | null {
  if (a === null) return b
  if (b === null) return a
  return b > a ? b : a
}

function setLast(s: TranscriptState, kind: LastKind, off: number): void {
  s.last = kind
  s.lastOff = off
}

function closeForegroundTools(s: TranscriptState): void {
  s.open = {}
}

function openBackground(s: TranscriptState, id: string, off: number): void {
  if (s.bg.includes(id)) return
  s.bg.push(id)
  if (s.bg.length > MAX_BG) s.bg.shift()
  s.bgOff = off
}

function closeBackground(s: TranscriptState, id: string, off: number): void {
  const i = s.bg.indexOf(id)
  if (i < 0) return
  s.bg.splice(i, 1)
  s.bgOff = off
}

/** The question an AskUserQuestion / ExitPlanMode call puts to the user. */
function askText(name: string, input: unknown): string | undefined {
  if (name !== 'AskUserQuestion' && name !== 'ExitPlanMode') return undefined
  const fallback = name === 'ExitPlanMode' ? 'Approve the plan?' : 'Question'
  if (!isObject(input)) return fallback
  const questions = input['questions']
  if (Array.isArray(questions)) {
    const first: unknown = questions[0]
    if (isObject(first) && typeof first['question'] === 'string' && first['question'].trim() !== '') {
      return first['question'].trim().slice(0, ASK_MAX)
    }
  }
  const question = str(input['question'])
  if (question !== null && question.trim() !== '') return question.trim().slice(0, ASK_MAX)
  const plan = str(input['plan'])
  if (plan !== null && plan.trim() !== '') return plan.trim().slice(0, ASK_MAX)
  return fallback
}

/** The shell a BashOutput / KillShell call targets. */
function shellOf(name: string, input: unknown): string | undefined {
  if (!isObject(input)) return undefined
  if (name === 'BashOutput') return str(input['bash_id']) ?? str(input['shell_id']) ?? undefined
  if (name === 'KillShell' || name === 'KillBash') return str(input['shell_id']) ?? str(input['bash_id']) ?? undefined
  return undefined
}

const BACKGROUND_ID = /running in background with ID: ?([\w-]+)/

/** A background task a tool result started, if any: a shell, or an async agent. */
function startedTask(toolUseResult: unknown, content: string): {id: string; agent: boolean} | null {
  if (isObject(toolUseResult)) {
    const shell = str(toolUseResult['backgroundTaskId'])
    if (shell !== null) return {agent: false, id: shell}
    if (toolUseResult['status'] === 'async_launched' || toolUseResult['isAsync'] === true) {
      const agent = str(toolUseResult['agentId']) ?? str(toolUseResult['taskId'])
      if (agent !== null) return {agent: true, id: agent}
    }
  }
  // The notice is one short line; big tool outputs (tens of KB) are not scanned for it.
  const id = content.length <= 1000 ? (BACKGROUND_ID.exec(content)?.[1] ?? null) : null
  return id === null ? null : {agent: false, id}
}

function openAgent(s: TranscriptState, id: string): void {
  const agents = s.agents ?? []
  if (agents.includes(id)) return
  s.agents = [...agents, id].slice(-MAX_BG)
}

function closeAgent(s: TranscriptState, id: string): void {
  if (s.agents?.includes(id)) s.agents = s.agents.filter((a) => a !== id)
}

function countAssistant(s: TranscriptState, id: string | null, off: number): void {
  if (id !== null && s.ids.includes(id)) return
  s.assistants += 1
  s.src['messages'] = off
  if (id === null) return
  s.ids.push(id)
  if (s.ids.length > RECENT_IDS) s.ids.shift()
}

/** A slash command whose next line is the model's reply started a turn. */
function commandReachedModel(s: TranscriptState): void {
  if (s.cmd === null) return
  s.prompts += 1
  s.turns += 1
  s.turnStartedAt = s.cmd.at
  s.src['turnIndex'] = s.cmd.off
  s.src['turnStartedAt'] = s.cmd.off
  s.src['messages'] = s.cmd.off
  s.cmd = null
}

function onUser(s: TranscriptState, rec: Json, at: number | null, off: number): void {
  const message = rec['message']
  const content = isObject(message) ? message['content'] : undefined
  s.lastConvAt = later(s.lastConvAt, at)
  if (rec['isMeta'] === true || rec['isCompactSummary'] === true || rec['isVisibleInTranscriptOnly'] === true) return

  // Tool results close their calls; a background launch opens a task.
  let results = 0
  let interrupted = false
  if (Array.isArray(content)) {
    for (const block of content) {
      if (!isObject(block) || block['type'] !== 'tool_result') continue
      results += 1
      const id = str(block['tool_use_id'])
      if (id === null) continue
      const tool = s.open[id]
      delete s.open[id]
      const text = resultText(block['content'])
      if (isInterrupt(text)) interrupted = true
      const task = block['is_error'] === true ? null : startedTask(rec['toolUseResult'], text)
      if (task !== null && task.agent) openAgent(s, task.id)
      else if (task !== null) openBackground(s, task.id, off)
      if (tool?.shell !== undefined) {
        const status = isObject(rec['toolUseResult']) ? str(rec['toolUseResult']['status']) : null
        const done = status === 'completed' || status === 'failed' || status === 'killed'
        if (tool.name !== 'BashOutput' || done) closeBackground(s, tool.shell, off)
      }
      if (tool?.ask !== undefined) s.src['question'] = off
    }
  }
  if (results > 0) {
    s.lastInputAt = later(s.lastInputAt, at)
    if (interrupted) closeForegroundTools(s)
    setLast(s, interrupted ? 'interrupt' : 'result', off)
    return
  }

  const texts = textBlocks(content)
  const first = texts[0] ?? ''
  if (texts.some(isInterrupt)) {
    s.lastInputAt = later(s.lastInputAt, at)
    closeForegroundTools(s)
    s.cmd = null
    setLast(s, 'interrupt', off)
    return
  }
  if (texts.some(isTaskNotification)) {
    for (const text of texts) {
      const done = finishedTask(text)
      if (done !== null) {
        closeBackground(s, done, off)
        closeAgent(s, done)
      }
    }
    setLast(s, 'wake', off)
    return
  }
  if (isLocalOutput(first)) {
    if (s.cmd !== null || s.last === 'command') setLast(s, 'local', off)
    s.cmd = null
    return
  }
  if (isCommand(first)) {
    s.lastInputAt = later(s.lastInputAt, at)
    s.cmd = {at, off}
    setLast(s, 'command', off)
    return
  }

  const typed = texts.filter((text) => !isInjected(text) && text.trim() !== '')
  const hasImage = Array.isArray(content) && content.some((b) => isObject(b) && b['type'] === 'image')
  if (typed.length === 0 && !hasImage) return

  // A real prompt: a new turn. Whatever the last turn left open is over.
  s.prompts += 1
  s.turns += 1
  s.turnStartedAt = at
  s.lastPrompt = clip(typed.join('\n'))
  s.turnTools = []
  s.lastInputAt = later(s.lastInputAt, at)
  s.src['messages'] = off
  s.src['turnIndex'] = off
  s.src['turnStartedAt'] = off
  closeForegroundTools(s)
  s.cmd = null
  if (s.error !== null) {
    s.error = null
    s.src['error'] = off
  }
  setLast(s, 'prompt', off)
  if (s.prompt === null) {
    const title = oneLine(typed[0] ?? '')
    if (title !== null) s.prompt = {off, text: title}
  }
}

function onAssistant(s: TranscriptState, rec: Json, at: number | null, off: number): void {
  const message = isObject(rec['message']) ? rec['message'] : {}
  const id = str(message['id'])
  s.lastConvAt = later(s.lastConvAt, at)
  commandReachedModel(s)
  countAssistant(s, id, off)

  if (rec['isApiErrorMessage'] === true) {
    const text = oneLine(textBlocks(message['content']).join('\n')) ?? str(rec['error']) ?? 'API error'
    s.error = {at, off, text}
    s.src['error'] = off
    setLast(s, 'error', off)
    return
  }

  const model = str(message['model'])
  if (model !== null && model !== '<synthetic>') {
    s.model = model
    s.src['model'] = off
  }
  if (s.error !== null) {
    s.error = null
    s.src['error'] = off
  }

  let text = false
  let tool = false
  const content = message['content']
  for (const block of Array.isArray(content) ? content : []) {
    if (!isObject(block)) continue
    if (block['type'] === 'text' && typeof block['text'] === 'string') {
      text = true
      const joined = s.textId !== null && s.textId === id && s.text !== null ? `${s.text}\n\n${block['text']}` : block['text']
      s.text = clip(joined)
      s.textId = id
      s.textOff = off
    } else if (block['type'] === 'tool_use') {
      tool = true
      const toolId = str(block['id'])
      const name = str(block['name']) ?? 'tool'
      if (s.turnTools !== undefined && !s.turnTools.includes(name) && s.turnTools.length < 32) s.turnTools.push(name)
      if (toolId === null) continue
      const ask = askText(name, block['input'])
      const shell = shellOf(name, block['input'])
      s.open[toolId] = {at, name, off, ...(ask === undefined ? {} : {ask}), ...(shell === undefined ? {} : {shell})}
      if (ask !== undefined) s.src['question'] = off
      const ids = Object.keys(s.open)
      if (ids.length > MAX_OPEN) delete s.open[ids[0] ?? '']
    }
  }
  if (model !== '<synthetic>' && (text || tool)) {
    s.lastOutputAt = later(s.lastOutputAt, at)
    s.src['lastOutputAt'] = off
  }
  if (tool) setLast(s, 'tool', off)
  else if (text) setLast(s, 'reply', off)
  else setLast(s, 'thinking', off)
}

function onSystem(s: TranscriptState, rec: Json, at: number | null, off: number): void {
  const subtype = rec['subtype']
  if (subtype === 'turn_duration' || subtype === 'stop_hook_summary') {
    s.lastInputAt = later(s.lastInputAt, at)
    if (subtype === 'turn_duration') {
      s.endAt = at
      const pending = rec['pendingBackgroundAgentCount']
      s.pendingAgents = typeof pending === 'number' && pending > 0 ? pending : 0
    }
    closeForegroundTools(s)
    setLast(s, 'end', off)
    return
  }
  if (subtype === 'local_command') {
    const content = str(rec['content']) ?? ''
    if (isLocalOutput(content) && (s.cmd !== null || s.last === 'command')) {
      s.cmd = null
      setLast(s, 'local', off)
    } else if (isCommand(content)) {
      s.cmd = {at, off}
      setLast(s, 'command', off)
    }
  }
  // api_error lines are retries in flight, not a final state; the rest is structural.
}

function onQueue(s: TranscriptState, rec: Json, off: number): void {
  const op = rec['operation']
  if (op === 'enqueue') {
    s.queued += 1
    s.queuedOff = off
    const done = finishedTask(str(rec['content']) ?? '')
    if (done !== null) {
      closeBackground(s, done, off)
      closeAgent(s, done)
    }
  } else if (op === 'dequeue' || op === 'remove') {
    s.queued = Math.max(0, s.queued - 1)
    s.queuedOff = off
  } else if (op === 'popAll') {
    s.queued = 0
    s.queuedOff = off
  }
}

function onAttachment(s: TranscriptState, rec: Json, off: number): void {
  const attachment = rec['attachment']
  if (!isObject(attachment) || attachment['type'] !== 'queued_command') return
  const prompt = str(attachment['prompt'])
  if (prompt === null) return
  const done = finishedTask(prompt)
  if (done !== null) {
    closeBackground(s, done, off)
    closeAgent(s, done)
  }
}

/** Feed one line, parsed by the engine (a JSON object; malformed lines never reach here). */
export function feedLine(s: TranscriptState, rec: JsonRecord, offset: number): boolean {
  const type = rec['type']
  switch (type) {
    case 'summary': {
      const summary = oneLine(str(rec['summary']) ?? '')
      if (summary !== null) s.summary = {off: offset, text: summary}
      return true
    }
    case 'ai-title': {
      const title = oneLine(str(rec['aiTitle']) ?? '')
      if (title !== null) s.ai = {off: offset, text: title}
      return true
    }
    case 'custom-title': {
      const title = oneLine(str(rec['customTitle']) ?? '')
      if (title !== null) s.custom = {off: offset, text: title}
      return true
    }
    case 'queue-operation': {
      onQueue(s, rec, offset)
      return true
    }
    case 'attachment': {
      onAttachment(s, rec, offset)
      return true
    }
    default:
  }
  if (type !== 'user' && type !== 'assistant' && type !== 'system') return true

  const at = toMs(rec['timestamp'])
  if (at !== null && (s.createdAt === null || at < s.createdAt)) {
    s.createdAt = at
    s.src['createdAt'] = offset
  }
  if (at !== null && (s.lastActivityAt === null || at >= s.lastActivityAt)) {
    s.lastActivityAt = at
    s.src['lastActivityAt'] = offset
  }
  const cwd = str(rec['cwd'])
  if (s.cwd === null && cwd !== null && cwd !== '') {
    s.cwd = cwd
    s.src['cwd'] = offset
  }
  const sid = str(rec['sessionId'])
  if (s.sid === null && sid !== null) s.sid = sid

  // CC 1.x wrote subagent (Task) lines inline in the parent's file. They are the subagent's
  // conversation, not the parent's: they only show the session is active.
  if (rec['isSidechain'] === true && !s.sub) return true

  if (type === 'user') onUser(s, rec, at, offset)
  else if (type === 'assistant') onAssistant(s, rec, at, offset)
  else onSystem(s, rec, at, offset)
  return true
}

/** The open question, if an AskUserQuestion / ExitPlanMode call has no result yet. */
function openQuestion(s: TranscriptState, source: (off: number) => FactSource): HardBlock | null {
  let found: OpenTool | null = null
  for (const tool of Object.values(s.open)) {
    if (tool.ask !== undefined && (found === null || tool.off >= found.off)) found = tool
  }
  if (found === null || found.ask === undefined) return null
  return {at: found.at ?? 0, source: source(found.off), text: found.ask}
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

export function transcriptContributions(
  s: TranscriptState,
  path: string,
  match: FileMatch & {kind: 'jsonl'},
): Contribution[] {
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
  return [
    {
      extra: {
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
      },
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
