/**
 * The Claude Code transcript's line handlers: one record (parsed once by the engine) in, the
 * parser's state (transcript-state.ts) updated.
 */
import type {JsonRecord} from '../../core/ingest/adapter.js'
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
  resultingTask,
  str,
  textBlocks,
  toMs,
} from './text.js'
import {
  closeAgent,
  closeBackground,
  closeForegroundTools,
  commandReachedModel,
  countAssistant,
  later,
  MAX_OPEN,
  openAgent,
  finishNoted,
  finishTaken,
  openBackground,
  setLast,
  type TranscriptState,
} from './transcript-state.js'
import {askChoices, askQuestions, askText} from './asks.js'

/** The shell a BashOutput / KillShell call targets. */
function shellOf(name: string, input: unknown): string | undefined {
  if (!isObject(input)) return undefined
  if (name === 'BashOutput') return str(input['bash_id']) ?? str(input['shell_id']) ?? undefined
  if (name === 'KillShell' || name === 'KillBash') return str(input['shell_id']) ?? str(input['bash_id']) ?? undefined
  return undefined
}

const BACKGROUND = 'running in background with ID'
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
  const id = content.length <= 1000 && content.includes(BACKGROUND) ? (BACKGROUND_ID.exec(content)?.[1] ?? null) : null
  return id === null ? null : {agent: false, id}
}

/** Tool results close their calls; a background launch opens a task. How many, and whether one was an interrupt. */
function toolResults(s: TranscriptState, rec: Json, content: unknown, off: number): {results: number; interrupted: boolean} {
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
  return {interrupted, results}
}

function onUser(s: TranscriptState, rec: Json, at: number | null, off: number): void {
  const message = rec['message']
  const content = isObject(message) ? message['content'] : undefined
  s.lastConvAt = later(s.lastConvAt, at)
  if (rec['isMeta'] === true || rec['isCompactSummary'] === true || rec['isVisibleInTranscriptOnly'] === true) return
  const {interrupted, results} = toolResults(s, rec, content, off)
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
    finishTaken(s, off)
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
  onPrompt(s, typed, at, off)
}

/** A real prompt: a new turn. Whatever the last turn left open is over. */
function onPrompt(s: TranscriptState, typed: readonly string[], at: number | null, off: number): void {
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
  finishTaken(s, off)
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
  finishTaken(s, off)

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
      const choices = askChoices(name, block['input'])
      const questions = askQuestions(name, block['input'])
      const shell = shellOf(name, block['input'])
      s.open[toolId] = {
        at,
        name,
        off,
        ...(ask === undefined ? {} : {ask}),
        ...(choices === undefined ? {} : {choices}),
        ...(questions === undefined ? {} : {questions}),
        ...(shell === undefined ? {} : {shell}),
      }
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
    const content = str(rec['content']) ?? ''
    const done = finishedTask(content)
    if (done !== null) {
      closeBackground(s, done, off)
      closeAgent(s, done)
      finishNoted(s, resultingTask(content), toMs(rec['timestamp']), off)
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
    // Delivered into the turn as an attachment: the agent has it.
    finishTaken(s, off)
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
