/**
 * Copilot CLI hook payloads (docs/hooks.md), reduced to what they say about a session.
 *
 * Copilot sends one of two shapes, picked by how the event is spelled in the hooks file:
 * PascalCase keys (`SessionStart`, `Stop`, …) get the VS Code-compatible payload with
 * `hook_event_name` and `session_id`; camelCase keys (`sessionStart`, `agentStop`, …) get
 * `sessionId` and no event name at all, so the event is told from the fields it carries.
 * `notification` names itself in both (`hook_event_name: "Notification"`).
 *
 *   SessionStart                     a process at the prompt (settled); with an initialPrompt, a turn starts
 *   UserPromptSubmit                 a turn starts (working); closes open asks and errors
 *   PreToolUse / PostToolUse(Failure) the turn runs; a tool moving answers a permission prompt;
 *                                    `ask_user` opens / closes a question
 *   Notification permission_prompt   a permission prompt waits (approval)
 *   Notification elicitation_dialog  the agent asks the user (question)
 *   Stop                             the turn ended (settled)
 *   ErrorOccurred (not recoverable)  an error banner
 *   PreCompact                       compaction
 *   SessionEnd                       the process exits (settled)
 */
import type {Contribution, HookEvent, HookReducer} from '../../core/ingest/adapter.js'
import type {FactSource} from '../../core/model/types.js'
import {
  blockSources,
  closeAsks,
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
import type {CopilotHookFacts} from './facts.js'
import {isObject, oneLine, str, type Json} from './text.js'

export {HOOK_PRIORITY, type HookBlock} from '../kit/hook-steps.js'

export interface CopilotHookState {
  event: string | null
  at: number | null
  activityAt: number | null
  settled: boolean | null
  settledAt: number | null
  settledEvent: string | null
  approval: HookBlock | null
  question: HookBlock | null
  error: HookBlock | null
  promptAt: number | null
  sessionStartAt: number | null
  exitedAt: number | null
  compactAt: number | null
  cwd: string | null
}

export function initCopilotHooks(): CopilotHookState {
  return {
    activityAt: null,
    approval: null,
    at: null,
    compactAt: null,
    cwd: null,
    error: null,
    event: null,
    exitedAt: null,
    promptAt: null,
    question: null,
    sessionStartAt: null,
    settled: null,
    settledAt: null,
    settledEvent: null,
  }
}

const ALIASES: Readonly<Record<string, string>> = {
  agentStop: 'Stop',
  errorOccurred: 'ErrorOccurred',
  notification: 'Notification',
  postToolUse: 'PostToolUse',
  postToolUseFailure: 'PostToolUseFailure',
  preCompact: 'PreCompact',
  preToolUse: 'PreToolUse',
  sessionEnd: 'SessionEnd',
  sessionStart: 'SessionStart',
  subagentStop: 'SubagentStop',
  userPromptSubmitted: 'UserPromptSubmit',
}

/** The event a payload reports: its `hook_event_name`, else what its fields say (camelCase payloads). */
export function copilotHookEvent(p: Readonly<Json>): string | null {
  const named = str(p['hook_event_name']) ?? str(p['hookEventName'])
  if (named !== null) return ALIASES[named] ?? named
  if (typeof p['notification_type'] === 'string') return 'Notification'
  if ('errorContext' in p || ('error' in p && 'recoverable' in p)) return 'ErrorOccurred'
  if ('toolName' in p) {
    if ('toolResult' in p) return 'PostToolUse'
    if ('error' in p) return 'PostToolUseFailure'
    return 'PreToolUse'
  }

  if ('agentName' in p) return 'stopReason' in p ? 'SubagentStop' : 'SubagentStart'
  if ('stopReason' in p) return 'Stop'
  if ('trigger' in p) return 'PreCompact'
  if ('prompt' in p) return 'UserPromptSubmit'
  if ('source' in p) return 'SessionStart'
  if ('reason' in p) return 'SessionEnd'
  return null
}

export function copilotHookSession(event: HookEvent): string | null {
  return str(event.payload['session_id']) ?? str(event.payload['sessionId'])
}

function toolOf(p: Readonly<Json>): string | null {
  return str(p['tool_name']) ?? str(p['toolName'])
}

function questionOf(p: Readonly<Json>): string {
  const input = p['tool_input'] ?? p['toolArgs']
  const q = isObject(input) ? (str(input['message']) ?? str(input['question']) ?? str(input['prompt'])) : null
  return (q === null ? null : oneLine(q, 500)) ?? 'Question'
}

/**
 * 1.0.102 starts the session when the first prompt is sent: `initialPrompt` is that prompt, and
 * its turn begins here (userPromptSubmitted follows; a crash in between is a lost turn).
 */
function sessionStarts(s: CopilotHookState, at: number, p: HookEvent['payload']): void {
  startSession(s, at, 'SessionStart')
  if (str(p['initialPrompt']) === null) return
  s.activityAt = at
  startTurn(s, at, 'SessionStart')
}

export function reduceCopilotHook(prev: CopilotHookState, event: HookEvent): CopilotHookState {
  const p = event.payload
  const name = copilotHookEvent(p)
  if (name === null) return prev
  const at = event.at
  const s: CopilotHookState = {...prev, at, event: name}
  const cwd = str(p['cwd'])
  if (cwd !== null) s.cwd = cwd
  if (name !== 'SessionStart' && name !== 'SessionEnd' && name !== 'Notification') s.activityAt = at
  const tool = toolOf(p)

  switch (name) {
    case 'SessionStart': {
      sessionStarts(s, at, p)
      break
    }

    case 'UserPromptSubmit': {
      s.error = null
      closeAsks(s)
      startTurn(s, at, name)
      break
    }

    case 'PreToolUse': {
      toolMoved(s, at, name)
      if (tool === 'ask_user') openQuestion(s, at, name, questionOf(p))
      break
    }

    case 'PostToolUse':
    case 'PostToolUseFailure': {
      toolMoved(s, at, name)
      if (tool === 'ask_user' || tool === null) s.question = null
      break
    }

    case 'Notification': {
      const kind = str(p['notification_type'])
      const text = oneLine(str(p['message']) ?? str(p['title']) ?? '', 200)
      if (kind === 'permission_prompt') openApproval(s, at, name, text ?? 'tool')
      else if (kind === 'elicitation_dialog') openQuestion(s, at, name, text ?? 'Question')
      break
    }

    case 'Stop': {
      closeAsks(s)
      settle(s, true, at, name)
      break
    }

    case 'ErrorOccurred': {
      if (p['recoverable'] === true) break
      const err = p['error']
      const text = (isObject(err) ? str(err['message']) : str(err)) ?? 'error'
      s.error = {at, event: name, text: oneLine(text, 500) ?? 'error'}
      break
    }

    case 'PreCompact': {
      s.compactAt = at
      break
    }

    case 'SessionEnd': {
      closeAsks(s)
      endSession(s, at, name)
      break
    }

    default:
  }

  return s
}

export function copilotHookContribution(s: CopilotHookState, nativeId: string): Contribution<CopilotHookFacts> | null {
  if (s.event === null) return null
  const sources: Record<string, FactSource> = {}
  const facts: HookFacts = {
    approval: hardBlock(s.approval),
    error: hardBlock(s.error),
    question: hardBlock(s.question),
  }
  blockSources(facts, sources, ['approval', 'question', 'error'])
  settledFact(s, facts, sources)
  facts.sources = sources
  // Not facts (hooks alone, with no file of the agent's own, do not make a session): hookMoments.
  const extra: CopilotHookFacts = {
    ...hookMoments(s),
    compactAt: s.compactAt,
    sessionStartAt: s.sessionStartAt,
  }
  return contributionOf(nativeId, facts, extra)
}

export const copilotHooks: HookReducer<CopilotHookState> = {
  contribution: copilotHookContribution,
  init: initCopilotHooks,
  reduce: reduceCopilotHook,
  sessionOf: copilotHookSession,
}
