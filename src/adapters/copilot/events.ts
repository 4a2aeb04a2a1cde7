/**
 * Resumable parser for Copilot CLI's `events.jsonl` (agent-formats §7.2, §7.3). Every line is an
 * envelope `{type, data, id, timestamp, parentId, agentId?}`; events from inside a subagent carry
 * `agentId` and/or `data.parentToolCallId` (the `task` tool call that runs it).
 *
 *   session.start / session.resume     id, cwd (context.cwd), selected model; a (new) process
 *   user.message                       a turn starts
 *   assistant.turn_start / turn_end    one model round; a round whose reply asked for tools is
 *                                      followed by another
 *   assistant.message                  a reply (counted once per messageId)
 *   tool.execution_start / _complete   open tool calls; an open `ask_user` is a question
 *   permission.requested / completed   a permission prompt, when the build persists it
 *   abort, session.task_complete       the turn ended (task_complete holds through the
 *                                      assistant.turn_end that follows it, seen in 1.0.102)
 *   tool.execution_complete "…shellId: N is still running…"   a background shell (1.0.102:
 *                                      a sync bash returns after 30 s and keeps running)
 *   system.notification                shell_completed closes that shell; a notification at
 *                                      a settled prompt starts a turn with no user.message
 *   session.error                      an error (the turn ended); cleared by the next prompt
 *   session.shutdown                   the process exited (routine or error)
 *   subagent.started / completed / failed, and the events inside one: subagent children
 *   session.compaction_complete, session.truncation: compaction
 *
 * The state keeps counters and short capped lists only (open tools, open permission prompts,
 * subagents), so it stays small however long the log grows.
 */
import type {Contribution, FileMatch, JsonRecord, JsonlParser} from '../../core/ingest/adapter.js'
import type {FactSource, HardBlock, SessionFacts} from '../../core/model/types.js'
import {clip, firstLine, isObject, later, oneLine, str, toMs, type Json} from './text.js'

const MAX_OPEN = 64
const MAX_PERMISSIONS = 16
const MAX_SUBAGENTS = 32
const MAX_TEXT = 4000

export interface OpenTool {
  readonly id: string
  readonly name: string
  readonly at: number | null
  /** The question of an open `ask_user` call. */
  readonly question?: string
}

export interface OpenPermission {
  readonly id: string
  readonly text: string
  readonly at: number | null
  readonly offset: number
}

export interface Subagent {
  readonly id: string
  agentId: string | null
  name: string | null
  title: string | null
  model: string | null
  startedAt: number | null
  endedAt: number | null
  lastAt: number | null
  messages: number
  failed: string | null
  cancelled: boolean
}

/** Lifecycle markers, newest last: what the turn looks like now. */
type Marker = 'user' | 'wake' | 'turn_start' | 'turn_end' | 'abort' | 'task_complete' | 'error' | 'resume' | 'shutdown' | null

export interface CopilotState {
  readonly v: 1
  sessionId: string | null
  version: string | null
  cwd: string | null
  model: string | null
  selectedModel: string | null
  createdAt: number | null
  /** The last session.start / session.resume: when the current process began. */
  startedAt: number | null
  lastActivityAt: number | null
  /** The last event that shows the conversation moving (not bookkeeping such as hook.start). */
  progressAt: number | null
  lastOutputAt: number | null
  prompts: number
  replies: number
  lastReplyId: string | null
  firstPrompt: string | null
  turnIndex: number
  turnStartedAt: number | null
  marker: Marker
  /** The last main-agent reply asked for tools: another round follows its turn_end. */
  replyAsksTools: boolean
  /** session.task_complete since the last turn start: the turn is over whatever follows. */
  taskComplete?: boolean
  /** Background shells still running (their shellIds), newest last. */
  shells?: string[]
  openTools: OpenTool[]
  permissions: OpenPermission[]
  error: {text: string; at: number | null; offset: number} | null
  shutdown: {at: number | null; type: string | null; reason: string | null} | null
  aborts: number
  compactions: number
  subagents: Subagent[]
  lastAssistantText: string | null
  src: Record<string, number>
}

export function initCopilot(): CopilotState {
  return {
    aborts: 0,
    compactions: 0,
    createdAt: null,
    cwd: null,
    error: null,
    firstPrompt: null,
    lastActivityAt: null,
    lastAssistantText: null,
    lastOutputAt: null,
    lastReplyId: null,
    marker: null,
    model: null,
    openTools: [],
    permissions: [],
    progressAt: null,
    prompts: 0,
    replies: 0,
    replyAsksTools: false,
    selectedModel: null,
    sessionId: null,
    shutdown: null,
    src: {},
    shells: [],
    startedAt: null,
    subagents: [],
    taskComplete: false,
    turnIndex: 0,
    turnStartedAt: null,
    v: 1,
    version: null,
  }
}

/** Events that show the conversation moving; the rest (hooks, usage, settings) are bookkeeping. */
const PROGRESS = new Set([
  'abort',
  'assistant.message',
  'assistant.reasoning',
  'assistant.turn_end',
  'assistant.turn_start',
  'permission.completed',
  'permission.requested',
  'session.compaction_complete',
  'session.compaction_start',
  'session.error',
  'session.resume',
  'session.shutdown',
  'session.start',
  'session.task_complete',
  'subagent.completed',
  'subagent.failed',
  'subagent.started',
  'system.notification',
  'tool.execution_complete',
  'tool.execution_start',
  'user.message',
])

/** What a permission prompt is about, as a short tool-like name (and the command, for a shell). */
export function permissionText(req: unknown): string {
  if (!isObject(req)) return 'tool'
  const kind = str(req['kind'])
  const tool = str(req['toolTitle']) ?? str(req['toolName'])
  const names: Readonly<Record<string, string>> = {memory: 'memory', read: 'view', shell: 'bash', url: 'web_fetch', write: 'write'}
  const name = tool ?? (kind === 'mcp' ? str(req['serverName']) : null) ?? (kind === null ? null : names[kind] ?? kind) ?? 'tool'
  const detail = str(req['fullCommandText']) ?? str(req['fileName']) ?? str(req['path']) ?? str(req['url'])
  const line = detail === null ? null : oneLine(detail, 120)
  return line === null || line === name ? name : `${name}: ${line}`
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  const out: string[] = []
  for (const part of content) {
    if (typeof part === 'string') out.push(part)
    else if (isObject(part) && typeof part['text'] === 'string') out.push(part['text'])
  }

  return out.join('\n')
}

function subagentOf(s: CopilotState, env: Json, data: Json): Subagent | null {
  const parentCall = str(data['parentToolCallId'])
  if (parentCall !== null) return s.subagents.find((a) => a.id === parentCall) ?? null
  const agentId = str(env['agentId'])
  if (agentId !== null) return s.subagents.find((a) => a.agentId === agentId) ?? null
  return null
}

/** An event from inside a subagent (known or not): it is not the main agent's. */
function insideSubagent(env: Json, data: Json): boolean {
  return str(data['parentToolCallId']) !== null || str(env['agentId']) !== null
}

function touchOutput(s: CopilotState, at: number | null, offset: number): void {
  if (at === null) return
  if (s.lastOutputAt === null || at >= s.lastOutputAt) {
    s.lastOutputAt = at
    s.src['lastOutputAt'] = offset
  }
}

function setModel(s: CopilotState, model: string | null, offset: number): void {
  if (model === null) return
  s.model = model
  s.src['model'] = offset
}

function contextCwd(s: CopilotState, data: Json, offset: number): void {
  const ctx = data['context']
  const cwd = (isObject(ctx) ? str(ctx['cwd']) : null) ?? str(data['cwd'])
  if (cwd !== null) {
    s.cwd = cwd
    s.src['cwd'] = offset
  }
}

/** An abort or an exit ends every subagent still running. */
function endSubagents(s: CopilotState, at: number | null): void {
  for (const a of s.subagents) {
    if (a.endedAt !== null) continue
    a.endedAt = at ?? a.lastAt
    a.cancelled = true
  }
}

function mark(s: CopilotState, marker: Marker, offset: number): void {
  s.marker = marker
  s.src['settled'] = offset
}

const MAX_SHELLS = 16
/** 1.0.102: `<command with shellId: 0 is still running after 30 seconds…>`; async mode's start. */
const SHELL_RUNNING = /shellId:\s*([\w.-]+)\s+is still running|started in (?:the )?background with shellId:\s*([\w.-]+)/i
/** read_bash: `<shellId: 0 completed with exit code 0>`; stop_bash and failures say so too. */
const SHELL_ENDED = /shellId:\s*([\w.-]+)\s+(?:completed|exited|failed|was stopped|stopped|terminated)/i

function resultText(data: Json): string {
  const result = data['result']
  if (typeof result === 'string') return result
  return isObject(result) ? (str(result['content']) ?? '') : ''
}

function openShell(s: CopilotState, id: string, offset: number): void {
  const shells = (s.shells ??= [])
  if (!shells.includes(id)) shells.push(id)
  if (shells.length > MAX_SHELLS) shells.shift()
  s.src['backgroundWork'] = offset
}

function closeShell(s: CopilotState, id: string, offset: number): void {
  const shells = s.shells ?? []
  if (!shells.includes(id)) return
  s.shells = shells.filter((x) => x !== id)
  s.src['backgroundWork'] = offset
}

function event(s: CopilotState, env: Json, type: string, data: Json, at: number | null, offset: number): void {
  const sub = subagentOf(s, env, data)
  const inside = insideSubagent(env, data)

  switch (type) {
    case 'session.start': {
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
      return
    }

    case 'session.resume': {
      // A new process: whatever the old one left open is gone; it waits at the prompt.
      s.startedAt = at
      s.shutdown = null
      s.openTools = []
      s.permissions = []
      s.shells = []
      contextCwd(s, data, offset)
      if (s.turnIndex > 0) mark(s, 'resume', offset)
      return
    }

    case 'session.context_changed': {
      contextCwd(s, data, offset)
      return
    }

    case 'session.model_change': {
      setModel(s, str(data['newModel']), offset)
      return
    }

    case 'session.error': {
      const text = oneLine(str(data['message']) ?? str(data['errorType']) ?? 'error', 500) ?? 'error'
      s.error = {at, offset, text}
      s.src['error'] = offset
      mark(s, 'error', offset)
      return
    }

    case 'session.compaction_complete':
    case 'session.truncation': {
      s.compactions += 1
      s.src['compaction'] = offset
      return
    }

    case 'session.task_complete': {
      if (inside) return
      s.taskComplete = true
      mark(s, 'task_complete', offset)
      return
    }

    case 'system.notification': {
      if (inside) return
      const kind = data['kind']
      const shell = isObject(kind) ? str(kind['shellId']) : null
      if (shell !== null && isObject(kind) && /^shell_(?:completed|failed|killed|exited)/.test(str(kind['type']) ?? '')) closeShell(s, shell, offset)
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

      return
    }

    case 'session.shutdown': {
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
      return
    }

    case 'user.message': {
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
      return
    }

    case 'assistant.turn_start': {
      if (inside) return
      s.taskComplete = false
      setModel(s, str(data['model']), offset)
      mark(s, 'turn_start', offset)
      return
    }

    case 'assistant.turn_end': {
      if (inside) return
      setModel(s, str(data['model']), offset)
      mark(s, 'turn_end', offset)
      return
    }

    case 'assistant.message': {
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

      return
    }

    case 'assistant.reasoning': {
      touchOutput(s, at, offset)
      return
    }

    case 'abort': {
      if (inside) return
      s.aborts += 1
      s.openTools = []
      s.permissions = []
      endSubagents(s, at)
      mark(s, 'abort', offset)
      return
    }

    case 'tool.execution_start': {
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
      return
    }

    case 'tool.execution_complete': {
      const id = str(data['toolCallId'])
      if (id !== null) s.openTools = s.openTools.filter((t) => t.id !== id)
      if (inside) return
      const out = resultText(data)
      const running = SHELL_RUNNING.exec(out)
      const shell = running?.[1] ?? running?.[2]
      if (shell !== undefined) openShell(s, shell, offset)
      const ended = SHELL_ENDED.exec(out)
      if (ended?.[1] !== undefined) closeShell(s, ended[1], offset)
      return
    }

    case 'permission.requested': {
      const id = str(data['requestId'])
      if (id === null || data['resolvedByHook'] === true || s.permissions.some((p) => p.id === id)) return
      s.permissions.push({at, id, offset, text: permissionText(data['permissionRequest'])})
      if (s.permissions.length > MAX_PERMISSIONS) s.permissions.shift()
      return
    }

    case 'permission.completed': {
      const id = str(data['requestId'])
      if (id !== null) s.permissions = s.permissions.filter((p) => p.id !== id)
      return
    }

    case 'subagent.started': {
      const id = str(data['toolCallId'])
      if (id === null) return
      let a = s.subagents.find((x) => x.id === id)
      if (a === undefined) {
        a = {agentId: null, cancelled: false, endedAt: null, failed: null, id, lastAt: at, messages: 0, model: null, name: null, startedAt: at, title: null}
        s.subagents.push(a)
        if (s.subagents.length > MAX_SUBAGENTS) s.subagents.shift()
      }

      a.agentId = str(env['agentId']) ?? a.agentId
      a.name = str(data['agentName']) ?? a.name
      const label = str(data['agentDisplayName']) ?? a.name
      const description = str(data['agentDescription'])
      a.title = label === null ? description : description === null ? label : `${label}: ${firstLine(description, 160) ?? ''}`
      a.model = str(data['model']) ?? a.model
      return
    }

    case 'subagent.completed':
    case 'subagent.failed': {
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

      return
    }

    default:
  }
}

/** Feed one line, parsed by the engine. Returns false for an event with no type (counted as malformed). */
export function feedEvents(s: CopilotState, env: JsonRecord, offset: number): boolean {
  if (typeof env['type'] !== 'string') return false

  const type = env['type']
  const data = isObject(env['data']) ? env['data'] : {}
  const at = toMs(env['timestamp'])
  if (at !== null && (s.lastActivityAt === null || at >= s.lastActivityAt)) {
    s.lastActivityAt = at
    s.src['lastActivityAt'] = offset
  }

  if (PROGRESS.has(type)) s.progressAt = later(s.progressAt, at)
  const sub = subagentOf(s, env, data)
  if (sub !== null) sub.lastAt = later(sub.lastAt, at)
  event(s, env, type, data, at, offset)
  return true
}

/** Whether the current turn has ended. */
export function isSettled(s: CopilotState): boolean {
  if (s.shutdown !== null) return true
  if (s.openTools.length > 0 || s.permissions.length > 0) return false
  switch (s.marker) {
    case 'turn_end':
      return !s.replyAsksTools || s.taskComplete === true
    case 'abort':
    case 'task_complete':
    case 'error':
    case 'resume':
    case 'shutdown':
      return true
    default:
      return false
  }
}

/** The extra an events contribution carries for compose. */
export interface EventsExtra {
  readonly role: 'events'
  readonly progressAt: number | null
  readonly startedAt: number | null
  readonly shutdownAt: number | null
  readonly shutdownType: string | null
  readonly firstPrompt: string | null
  readonly openTools: number
  readonly compactions: number
  readonly aborts: number
  readonly version: string | null
  readonly flat: boolean
}

export function eventsContributions(s: CopilotState, path: string, match: FileMatch & {kind: 'jsonl'}): Contribution[] {
  const nativeId = s.sessionId ?? match.nativeId
  const at = (fact: string): FactSource => {
    const offset = s.src[fact]
    return offset === undefined ? {kind: 'transcript', ref: path} : {kind: 'transcript', offset, ref: path}
  }

  const sources: Record<string, FactSource> = {}
  for (const fact of Object.keys(s.src)) sources[fact] = at(fact)
  if (s.firstPrompt !== null) sources['title'] = at('title')

  const ask = s.openTools.find((t) => t.question !== undefined)
  const question: HardBlock | null = ask === undefined ? null : {at: ask.at ?? s.progressAt ?? 0, source: at('question'), text: ask.question ?? 'Question'}
  const perm = s.permissions[0]
  const approval: HardBlock | null = perm === undefined ? null : {at: perm.at ?? s.progressAt ?? 0, source: {kind: 'transcript', offset: perm.offset, ref: path}, text: perm.text}
  if (approval !== null) sources['approval'] = approval.source
  const error: HardBlock | null = s.error === null ? null : {at: s.error.at ?? s.lastActivityAt ?? 0, source: at('error'), text: s.error.text}

  const facts: Partial<SessionFacts> = {
    approval,
    backgroundWork: s.shells?.length ?? 0,
    createdAt: s.createdAt,
    cwd: s.cwd,
    error,
    lastActivityAt: s.lastActivityAt,
    lastAssistantText: s.lastAssistantText,
    lastOutputAt: s.lastOutputAt,
    messages: s.prompts + s.replies,
    model: s.model ?? s.selectedModel,
    parentNativeId: null,
    question,
    settled: isSettled(s),
    sources,
    title: s.firstPrompt,
    turnIndex: s.turnIndex,
    turnStartedAt: s.turnStartedAt,
  }
  const extra: EventsExtra = {
    aborts: s.aborts,
    compactions: s.compactions,
    firstPrompt: s.firstPrompt,
    flat: !path.endsWith('events.jsonl'),
    openTools: s.openTools.length,
    progressAt: s.progressAt,
    role: 'events',
    shutdownAt: s.shutdown?.at ?? null,
    shutdownType: s.shutdown?.type ?? null,
    startedAt: s.startedAt,
    version: s.version,
  }
  const out: Contribution[] = [{extra: {...extra}, facts, nativeId, priority: 0}]

  // Subagents: children folded under this session.
  for (const a of s.subagents) {
    const childSources: Record<string, FactSource> = {parentNativeId: {kind: 'transcript', ref: path}}
    const failed: HardBlock | null = a.failed === null ? null : {at: a.endedAt ?? a.lastAt ?? 0, source: {kind: 'transcript', ref: path}, text: a.failed}
    out.push({
      extra: {role: 'subagent'},
      facts: {
        createdAt: a.startedAt,
        cwd: s.cwd,
        error: failed,
        lastActivityAt: a.lastAt,
        lastOutputAt: a.lastAt,
        messages: a.messages,
        model: a.model ?? s.model,
        parentNativeId: nativeId,
        settled: a.endedAt !== null,
        sources: childSources,
        title: a.title ?? a.name,
        turnIndex: 1,
        turnStartedAt: a.startedAt,
      },
      nativeId: `${nativeId}/${a.id}`,
      priority: 0,
    })
  }

  return out
}

export const eventsParser: JsonlParser<CopilotState> = {
  contributions: eventsContributions,
  init: () => initCopilot(),
  line: feedEvents,
}
