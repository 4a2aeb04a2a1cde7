/**
 * The Copilot CLI events parser's state (docs/agents/copilot.md): counters and short capped
 * lists only (open tools, open permission prompts, subagents, background shells), so it stays
 * small however long the log grows; and the small steps the event handlers (events-handlers.ts)
 * take on it.
 */
import {isObject, oneLine, str, type Json} from './text.js'

export const MAX_OPEN = 64
export const MAX_PERMISSIONS = 16
export const MAX_SUBAGENTS = 32
export const MAX_TEXT = 4000

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
export type Marker = 'user' | 'wake' | 'turn_start' | 'turn_end' | 'abort' | 'task_complete' | 'error' | 'resume' | 'shutdown' | null

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
export const PROGRESS = new Set([
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
  const name = tool ?? (kind === 'mcp' ? str(req['serverName']) : null) ?? (kind === null ? null : (names[kind] ?? kind)) ?? 'tool'
  const detail = str(req['fullCommandText']) ?? str(req['fileName']) ?? str(req['path']) ?? str(req['url'])
  const line = detail === null ? null : oneLine(detail, 120)
  return line === null || line === name ? name : `${name}: ${line}`
}

export function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  const out: string[] = []
  for (const part of content) {
    if (typeof part === 'string') out.push(part)
    else if (isObject(part) && typeof part['text'] === 'string') out.push(part['text'])
  }

  return out.join('\n')
}

export function subagentOf(s: CopilotState, env: Json, data: Json): Subagent | null {
  const parentCall = str(data['parentToolCallId'])
  if (parentCall !== null) return s.subagents.find((a) => a.id === parentCall) ?? null
  const agentId = str(env['agentId'])
  if (agentId !== null) return s.subagents.find((a) => a.agentId === agentId) ?? null
  return null
}

/** An event from inside a subagent (known or not): it is not the main agent's. */
export function insideSubagent(env: Json, data: Json): boolean {
  return str(data['parentToolCallId']) !== null || str(env['agentId']) !== null
}

export function touchOutput(s: CopilotState, at: number | null, offset: number): void {
  if (at === null) return
  if (s.lastOutputAt === null || at >= s.lastOutputAt) {
    s.lastOutputAt = at
    s.src['lastOutputAt'] = offset
  }
}

export function setModel(s: CopilotState, model: string | null, offset: number): void {
  if (model === null) return
  s.model = model
  s.src['model'] = offset
}

export function contextCwd(s: CopilotState, data: Json, offset: number): void {
  const ctx = data['context']
  const cwd = (isObject(ctx) ? str(ctx['cwd']) : null) ?? str(data['cwd'])
  if (cwd !== null) {
    s.cwd = cwd
    s.src['cwd'] = offset
  }
}

/** An abort or an exit ends every subagent still running. */
export function endSubagents(s: CopilotState, at: number | null): void {
  for (const a of s.subagents) {
    if (a.endedAt !== null) continue
    a.endedAt = at ?? a.lastAt
    a.cancelled = true
  }
}

export function mark(s: CopilotState, marker: Marker, offset: number): void {
  s.marker = marker
  s.src['settled'] = offset
}

export const MAX_SHELLS = 16
/** 1.0.102: `<command with shellId: 0 is still running after 30 seconds…>`; async mode's start. */
export const SHELL_RUNNING = /shellId:\s*([\w.-]+)\s+is still running|started in (?:the )?background with shellId:\s*([\w.-]+)/i
/** read_bash: `<shellId: 0 completed with exit code 0>`; stop_bash and failures say so too. */
export const SHELL_ENDED = /shellId:\s*([\w.-]+)\s+(?:completed|exited|failed|was stopped|stopped|terminated)/i

export function resultText(data: Json): string {
  const result = data['result']
  if (typeof result === 'string') return result
  return isObject(result) ? (str(result['content']) ?? '') : ''
}

export function openShell(s: CopilotState, id: string, offset: number): void {
  const shells = (s.shells ??= [])
  if (!shells.includes(id)) shells.push(id)
  if (shells.length > MAX_SHELLS) shells.shift()
  s.src['backgroundWork'] = offset
}

export function closeShell(s: CopilotState, id: string, offset: number): void {
  const shells = s.shells ?? []
  if (!shells.includes(id)) return
  s.shells = shells.filter((x) => x !== id)
  s.src['backgroundWork'] = offset
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

/** One event as the handlers see it: the envelope, its data, its time and offset, and its subagent. */
export interface CopilotEvent {
  readonly env: Json
  readonly type: string
  readonly data: Json
  readonly at: number | null
  readonly offset: number
  /** The subagent the event comes from, when it names one the log started. */
  readonly sub: Subagent | null
  /** The event comes from inside a subagent (it is not the main conversation's). */
  readonly inside: boolean
}
