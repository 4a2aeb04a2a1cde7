/**
 * The Copilot CLI events' handlers, one per event type (the list in events.ts's header): one
 * event (parsed once by the engine) in, the parser's state (events-state.ts) updated. Types not
 * listed carry no turn state (hooks, usage, settings).
 */
import {clip, firstLine, isObject, oneLine, str, toMs} from './text.js'
import {
  closeShell,
  contentText,
  contextCwd,
  type CopilotEvent,
  type CopilotState,
  endSubagents,
  isSettled,
  mark,
  MAX_OPEN,
  MAX_PERMISSIONS,
  MAX_SUBAGENTS,
  MAX_TEXT,
  type OpenTool,
  openShell,
  permissionText,
  resultText,
  setModel,
  SHELL_ENDED,
  SHELL_RUNNING,
  touchOutput,
} from './events-state.js'

function onSessionStart(s: CopilotState, {at, data, offset}: CopilotEvent): void {
  s.sessionId = str(data['sessionId']) ?? s.sessionId
  s.version = str(data['copilotVersion']) ?? s.version
  const created = toMs(data['startTime']) ?? at
  if (s.createdAt === null && created !== null) {
    s.createdAt = created
    s.src['createdAt'] = offset
  }

  s.startedAt = at
  s.shutdown = null
  s.selectedModel = str(data['selectedModel']) ?? s.selectedModel
  contextCwd(s, data, offset)
}

function onSessionResume(s: CopilotState, {at, data, offset}: CopilotEvent): void {
  // A new process: whatever the old one left open is gone; it waits at the prompt.
  s.startedAt = at
  s.shutdown = null
  s.openTools = []
  s.permissions = []
  s.shells = []
  contextCwd(s, data, offset)
  if (s.turnIndex > 0) mark(s, 'resume', offset)
}

function onSessionContextChanged(s: CopilotState, {data, offset}: CopilotEvent): void {
  contextCwd(s, data, offset)
}

function onSessionModelChange(s: CopilotState, {data, offset}: CopilotEvent): void {
  setModel(s, str(data['newModel']), offset)
}

function onSessionError(s: CopilotState, {at, data, offset}: CopilotEvent): void {
  const text = oneLine(str(data['message']) ?? str(data['errorType']) ?? 'error', 500) ?? 'error'
  s.error = {at, offset, text}
  s.src['error'] = offset
  mark(s, 'error', offset)
}

function onSessionCompactionComplete(s: CopilotState, {offset}: CopilotEvent): void {
  s.compactions += 1
  s.src['compaction'] = offset
}

function onSessionTaskComplete(s: CopilotState, {inside, offset}: CopilotEvent): void {
  if (inside) return
  s.taskComplete = true
  mark(s, 'task_complete', offset)
}

function onSystemNotification(s: CopilotState, {at, data, inside, offset}: CopilotEvent): void {
  if (inside) return
  const kind = data['kind']
  const shell = isObject(kind) ? str(kind['shellId']) : null
  if (shell !== null && isObject(kind) && /^shell_(?:completed|failed|killed|exited)/.test(str(kind['type']) ?? ''))
    closeShell(s, shell, offset)
  // At a settled prompt the CLI answers the notification itself: a turn starts with no
  // user.message (1.0.102: shell_completed, then a read_bash and a reply).
  if (isSettled(s)) {
    s.turnIndex += 1
    s.turnStartedAt = at
    s.src['turnIndex'] = offset
    s.replyAsksTools = false
    s.taskComplete = false
    mark(s, 'wake', offset)
  }
}

function onSessionShutdown(s: CopilotState, {at, data, offset}: CopilotEvent): void {
  const kind = str(data['shutdownType'])
  const reason = str(data['errorReason'])
  s.shutdown = {at, reason, type: kind}
  s.src['shutdown'] = offset
  s.openTools = []
  s.permissions = []
  s.shells = []
  endSubagents(s, at)
  setModel(s, str(data['currentModel']), offset)
  if (kind === 'error') {
    s.error = {at, offset, text: oneLine(reason ?? 'Copilot CLI exited with an error', 500) ?? 'error'}
    s.src['error'] = offset
  }

  mark(s, 'shutdown', offset)
}

function onUserMessage(s: CopilotState, {at, data, inside, offset, sub}: CopilotEvent): void {
  if (inside) {
    if (sub !== null) sub.messages += 1
    return
  }

  s.prompts += 1
  s.turnIndex += 1
  s.turnStartedAt = at
  s.src['turnIndex'] = offset
  s.src['messages'] = offset
  s.replyAsksTools = false
  s.taskComplete = false
  if (s.error !== null) {
    s.error = null
    s.src['error'] = offset
  }

  const source = str(data['source'])
  if (s.firstPrompt === null && (source === null || source === 'user')) {
    const text = str(data['content']) ?? contentText(data['content'])
    const title = firstLine(text)
    if (title !== null && !title.startsWith('/')) {
      s.firstPrompt = title
      s.src['title'] = offset
    }
  }

  mark(s, 'user', offset)
}

function onAssistantTurnStart(s: CopilotState, {data, inside, offset}: CopilotEvent): void {
  if (inside) return
  s.taskComplete = false
  setModel(s, str(data['model']), offset)
  mark(s, 'turn_start', offset)
}

function onAssistantTurnEnd(s: CopilotState, {data, inside, offset}: CopilotEvent): void {
  if (inside) return
  setModel(s, str(data['model']), offset)
  mark(s, 'turn_end', offset)
}

function onAssistantMessage(s: CopilotState, {at, data, env, inside, offset, sub}: CopilotEvent): void {
  touchOutput(s, at, offset)
  if (inside) {
    if (sub !== null) {
      sub.messages += 1
      sub.model = str(data['model']) ?? sub.model
    }

    return
  }

  const id = str(data['messageId']) ?? str(env['id'])
  if (id === null || id !== s.lastReplyId) s.replies += 1
  s.lastReplyId = id
  s.src['messages'] = offset
  const requests = data['toolRequests']
  s.replyAsksTools = Array.isArray(requests) && requests.length > 0
  setModel(s, str(data['model']), offset)
  const text = contentText(data['content']).trim()
  if (text !== '') {
    s.lastAssistantText = clip(text, MAX_TEXT)
    s.src['lastAssistantText'] = offset
  }
}

function onAssistantReasoning(s: CopilotState, {at, offset}: CopilotEvent): void {
  touchOutput(s, at, offset)
}

function onAbort(s: CopilotState, {at, inside, offset}: CopilotEvent): void {
  if (inside) return
  s.aborts += 1
  s.openTools = []
  s.permissions = []
  endSubagents(s, at)
  mark(s, 'abort', offset)
}

function onToolExecutionStart(s: CopilotState, {at, data, inside, offset}: CopilotEvent): void {
  touchOutput(s, at, offset)
  if (inside) return
  const id = str(data['toolCallId'])
  if (id === null || s.openTools.some((t) => t.id === id)) return
  const name = str(data['toolName']) ?? 'tool'
  const args = data['arguments']
  let tool: OpenTool = {at, id, name}
  if (name === 'ask_user') {
    // 1.0.102 asks with `message` (and a `requestedSchema` form); older builds `question`.
    const q = isObject(args) ? (str(args['message']) ?? str(args['question']) ?? str(args['prompt'])) : null
    tool = {...tool, question: (q === null ? null : oneLine(q, 500)) ?? 'Question'}
    s.src['question'] = offset
  }

  s.openTools.push(tool)
  if (s.openTools.length > MAX_OPEN) s.openTools.shift()
}

function onToolExecutionComplete(s: CopilotState, {data, inside, offset}: CopilotEvent): void {
  const id = str(data['toolCallId'])
  if (id !== null) s.openTools = s.openTools.filter((t) => t.id !== id)
  if (inside) return
  const out = resultText(data)
  const running = SHELL_RUNNING.exec(out)
  const shell = running?.[1] ?? running?.[2]
  if (shell !== undefined) openShell(s, shell, offset)
  const ended = SHELL_ENDED.exec(out)
  if (ended?.[1] !== undefined) closeShell(s, ended[1], offset)
}

function onPermissionRequested(s: CopilotState, {at, data, offset}: CopilotEvent): void {
  const id = str(data['requestId'])
  if (id === null || data['resolvedByHook'] === true || s.permissions.some((p) => p.id === id)) return
  s.permissions.push({at, id, offset, text: permissionText(data['permissionRequest'])})
  if (s.permissions.length > MAX_PERMISSIONS) s.permissions.shift()
}

function onPermissionCompleted(s: CopilotState, {data}: CopilotEvent): void {
  const id = str(data['requestId'])
  if (id !== null) s.permissions = s.permissions.filter((p) => p.id !== id)
}

function onSubagentStarted(s: CopilotState, {at, data, env}: CopilotEvent): void {
  const id = str(data['toolCallId'])
  if (id === null) return
  let a = s.subagents.find((x) => x.id === id)
  if (a === undefined) {
    a = {
      agentId: null,
      cancelled: false,
      endedAt: null,
      failed: null,
      id,
      lastAt: at,
      messages: 0,
      model: null,
      name: null,
      startedAt: at,
      title: null,
    }
    s.subagents.push(a)
    if (s.subagents.length > MAX_SUBAGENTS) s.subagents.shift()
  }

  a.agentId = str(env['agentId']) ?? a.agentId
  a.name = str(data['agentName']) ?? a.name
  const label = str(data['agentDisplayName']) ?? a.name
  const description = str(data['agentDescription'])
  a.title = label === null ? description : description === null ? label : `${label}: ${firstLine(description, 160) ?? ''}`
  a.model = str(data['model']) ?? a.model
}

function onSubagentCompleted(s: CopilotState, {at, data, type}: CopilotEvent): void {
  const id = str(data['toolCallId'])
  const a = id === null ? null : s.subagents.find((x) => x.id === id)
  if (a == null) return
  a.endedAt = at ?? a.lastAt
  a.cancelled = data['cancelled'] === true
  if (type === 'subagent.failed') {
    const err = data['error']
    const text = str(err) ?? (isObject(err) ? str(err['message']) : null) ?? 'subagent failed'
    a.failed = oneLine(text, 500) ?? 'subagent failed'
  }
}

/** The handler of each event type that moves the turn state. */
export const HANDLERS: Readonly<Record<string, (s: CopilotState, e: CopilotEvent) => void>> = {
  'session.start': onSessionStart,
  'session.resume': onSessionResume,
  'session.context_changed': onSessionContextChanged,
  'session.model_change': onSessionModelChange,
  'session.error': onSessionError,
  'session.compaction_complete': onSessionCompactionComplete,
  'session.truncation': onSessionCompactionComplete,
  'session.task_complete': onSessionTaskComplete,
  'system.notification': onSystemNotification,
  'session.shutdown': onSessionShutdown,
  'user.message': onUserMessage,
  'assistant.turn_start': onAssistantTurnStart,
  'assistant.turn_end': onAssistantTurnEnd,
  'assistant.message': onAssistantMessage,
  'assistant.reasoning': onAssistantReasoning,
  abort: onAbort,
  'tool.execution_start': onToolExecutionStart,
  'tool.execution_complete': onToolExecutionComplete,
  'permission.requested': onPermissionRequested,
  'permission.completed': onPermissionCompleted,
  'subagent.started': onSubagentStarted,
  'subagent.completed': onSubagentCompleted,
  'subagent.failed': onSubagentCompleted,
}
