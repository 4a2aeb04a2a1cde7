/**
 * Claude Code hook payloads (docs/hooks.md), reduced to what they say about a session.
 *
 *   UserPromptSubmit, PreToolUse      working (the turn runs)
 *   PermissionRequest,
 *   Notification permission_prompt    approval open (tool name) until PostToolUse(Failure),
 *                                     PermissionDenied, UserPromptSubmit, Stop or SessionEnd
 *   PermissionRequest AskUserQuestion,
 *   Notification elicitation_dialog,
 *   PreToolUse AskUserQuestion        question open until its tool finishes or the turn ends
 *                                     (2.1.328 fires PermissionRequest for AskUserQuestion, then
 *                                     ~6 s later a `permission_prompt` Notification naming no tool:
 *                                     both are the question, never "approve AskUserQuestion?")
 *   Notification idle_prompt, Stop    settled
 *   StopFailure                       settled on an API error (2.1.328 sends it instead of Stop)
 *   SessionEnd                        exited
 *
 * Hooks fired inside a subagent carry the parent's session_id: they describe the parent's
 * terminal (its permission prompt is the parent's), so they stay with the parent. They also carry
 * `agent_id`: a subagent's ask is not closed by the parent's own Stop (the parent's turn may end
 * while the subagent waits), only by the tool going on, SubagentStop, a new prompt or SessionEnd.
 */
import type {Contribution, HookEvent, HookReducer} from '../../core/ingest/adapter.js'
import type {FactSource} from '../../core/model/types.js'
import {
  blockSources,
  closeAsks,
  closeAsksOf,
  closeQuestion,
  contributionOf,
  endSession,
  hardBlock,
  type HookBlock,
  type HookFacts,
  openApproval,
  openQuestion,
  settle,
  settledFact,
  startSession,
  startTurn,
  toolMoved,
  hookMoments,
} from '../kit/hook-steps.js'
import type {ClaudeHookFacts} from './facts.js'
import {clip, isObject, oneLine, str, type Json} from './text.js'

export type {HookBlock} from '../kit/hook-steps.js'

export interface HookState {
  /** The last event and when it arrived. */
  event: string | null
  at: number | null
  /** Settled (true) or running (false) as of `settledAt`; null before any turn event. */
  settled: boolean | null
  settledAt: number | null
  settledEvent: string | null
  approval: HookBlock | null
  question: HookBlock | null
  /** The AskUserQuestion/ExitPlanMode tool whose PostToolUse closes the question. */
  askTool: string | null
  promptAt: number | null
  /** The last event that is activity in the session (not SessionStart/End or an idle reminder). */
  activityAt: number | null
  sessionStartAt: number | null
  exitedAt: number | null
  model: string | null
  cwd: string | null
  lastAssistantText: string | null
  /** StopFailure: the turn ended on an API error. Optional: states stored before it lack it. */
  error?: HookBlock | null
}

const ASK_TOOLS = ['AskUserQuestion', 'ExitPlanMode']

const ACTIVITY = [
  'UserPromptSubmit',
  'PreToolUse',
  'PermissionRequest',
  'PermissionDenied',
  'PostToolUse',
  'PostToolUseFailure',
  'Notification',
  'Stop',
  'StopFailure',
]

/** The error a StopFailure names: its message when it has one, else its kind (`rate_limit`, …). */
function errorOf(p: Json): string {
  const e = p['error']
  if (isObject(e)) return oneLine(str(e['message']) ?? str(e['type']) ?? 'API error') ?? 'API error'
  return oneLine(str(p['error_message']) ?? str(p['last_assistant_message']) ?? str(e) ?? 'API error') ?? 'API error'
}

function askOf(tool: string, input: unknown): string {
  if (isObject(input)) {
    const questions = input['questions']
    if (Array.isArray(questions)) {
      const first: unknown = questions[0]
      if (isObject(first) && typeof first['question'] === 'string' && first['question'].trim() !== '') return first['question'].trim()
    }
    const question = str(input['question']) ?? str(input['plan'])
    if (question !== null && question.trim() !== '') return question.trim().slice(0, 500)
  }
  return tool === 'ExitPlanMode' ? 'Approve the plan?' : 'Question'
}

/** "Claude needs your permission to use Bash" → "Bash". */
function toolFromMessage(message: string | null): string | null {
  if (message === null) return null
  return /permission to use ([\w:.-]+)/.exec(message)?.[1] ?? null
}

/**
 * The parent's turn ended (Stop), or ended on an API error (StopFailure: no Stop follows, the
 * banner is the user's to act on). Its own asks are over; a subagent's still waits for its answer.
 */
function turnEnded(s: HookState, p: Json, at: number, event: 'Stop' | 'StopFailure'): void {
  closeAsksOf(s, undefined)
  s.error = event === 'StopFailure' ? {at, event, text: errorOf(p)} : null
  settle(s, true, at, event)
  const text = event === 'Stop' ? str(p['last_assistant_message']) : null
  if (text !== null && text !== '') s.lastAssistantText = clip(text)
}

/**
 * A Notification: a permission prompt (usually after PermissionRequest for the same prompt: kept
 * when it opened; with a question open it is that question's reminder, 2.1.328 naming no tool),
 * a question, or the prompt idle for a while (an open ask is not a settled turn).
 */
function notified(s: HookState, p: Json, tool: string | null, agent: string | undefined, at: number, event: string): void {
  const kind = str(p['notification_type'])
  const message = str(p['message'])
  if (kind === 'permission_prompt') {
    if (s.question === null && s.approval === null) openApproval(s, at, event, tool ?? toolFromMessage(message) ?? 'tool', agent)
  } else if (kind === 'elicitation_dialog') {
    openQuestion(s, at, event, oneLine(message ?? '') ?? 'Question')
  } else if (kind === 'idle_prompt' && s.approval === null && s.question === null) {
    settle(s, true, at, event)
  }
}

/** AskUserQuestion / ExitPlanMode opened its dialog: the question, closed when that tool finishes. */
function openAsk(s: HookState, tool: string, p: Json, at: number, event: string, agent: string | undefined): void {
  openQuestion(s, at, event, askOf(tool, p['tool_input']), agent)
  s.askTool = tool
}

export function sessionOfHook(event: HookEvent): string | null {
  const id = str(event.payload['session_id'])
  return id === null || id === '' ? null : id
}

export function initHooks(): HookState {
  return {
    activityAt: null,
    approval: null,
    askTool: null,
    at: null,
    cwd: null,
    error: null,
    event: null,
    exitedAt: null,
    lastAssistantText: null,
    model: null,
    promptAt: null,
    question: null,
    sessionStartAt: null,
    settled: null,
    settledAt: null,
    settledEvent: null,
  }
}

export function reduceHook(prev: HookState, event: HookEvent): HookState {
  const p: Json = {...event.payload}
  const name = str(p['hook_event_name'])
  if (name === null) return prev
  const s: HookState = {...prev, at: event.at, event: name}
  const at = event.at
  const cwd = str(p['cwd'])
  if (cwd !== null && cwd !== '') s.cwd = cwd
  const tool = str(p['tool_name'])
  const agentId = str(p['agent_id'])
  const agent = agentId === null || agentId === '' ? undefined : agentId

  switch (name) {
    case 'SessionStart': {
      startSession(s, at, name)
      const model = str(p['model'])
      if (model !== null && model !== '') s.model = model
      break
    }
    case 'UserPromptSubmit': {
      s.error = null
      closeAsks(s)
      startTurn(s, at, name)
      break
    }
    case 'PreToolUse': {
      // A new tool call means any earlier permission prompt was answered.
      toolMoved(s, at, name)
      if (tool !== null && ASK_TOOLS.includes(tool)) openAsk(s, tool, p, at, name, agent)
      break
    }
    case 'PermissionRequest': {
      // AskUserQuestion asks for "permission" too (2.1.328): that dialog is the question.
      if (tool !== null && ASK_TOOLS.includes(tool)) openAsk(s, tool, p, at, name, agent)
      else openApproval(s, at, name, tool ?? 'tool', agent)
      break
    }
    case 'PermissionDenied': {
      s.approval = null
      break
    }
    case 'Notification': {
      notified(s, p, tool, agent, at, name)
      break
    }
    case 'PostToolUse':
    case 'PostToolUseFailure': {
      toolMoved(s, at, name)
      if (s.question !== null && (s.askTool === null || tool === null || tool === s.askTool)) closeQuestion(s)
      break
    }
    case 'Stop':
    case 'StopFailure': {
      turnEnded(s, p, at, name)
      break
    }
    case 'SubagentStop': {
      if (agentId !== null) closeAsksOf(s, agentId)
      break
    }
    case 'SessionEnd': {
      // The user left: whatever the turn was doing is over, as after an interrupt.
      closeAsks(s)
      endSession(s, at, name)
      break
    }
    default:
  }
  if (ACTIVITY.includes(name) && !(name === 'Notification' && str(p['notification_type']) === 'idle_prompt')) s.activityAt = at
  return s
}

export function hookContribution(s: HookState, nativeId: string): Contribution<ClaudeHookFacts> | null {
  if (s.event === null) return null
  const sources: Record<string, FactSource> = {}
  const facts: HookFacts = {
    approval: hardBlock(s.approval),
    error: hardBlock(s.error ?? null),
    question: hardBlock(s.question),
  }
  blockSources(facts, sources, ['error', 'approval', 'question'])
  settledFact(s, facts, sources)
  if (s.model !== null) facts.model = s.model
  if (s.lastAssistantText !== null) facts.lastAssistantText = s.lastAssistantText
  facts.sources = sources
  // Not facts (hooks alone, with no file of the agent's own, do not make a session): hookMoments.
  const extra: ClaudeHookFacts = {
    ...hookMoments(s),
    approvalAgent: s.approval?.agent ?? null,
    questionAgent: s.question?.agent ?? null,
    sessionStartAt: s.sessionStartAt,
  }
  return contributionOf(nativeId, facts, extra)
}

export const claudeHooks: HookReducer<HookState> = {
  contribution: hookContribution,
  init: initHooks,
  reduce: reduceHook,
  sessionOf: sessionOfHook,
}
