/**
 * Cursor agent hook payloads (docs/agents.md, docs/hooks.md): `{conversation_id, generation_id,
 * hook_event_name, workspace_roots, model?, …}` on stdin.
 *
 *   sessionStart                       a process at the prompt (settled)
 *   beforeSubmitPrompt                 a turn starts: working; clears an earlier error
 *   preToolUse, postToolUse, before/afterShellExecution, before/afterMCPExecution,
 *   afterFileEdit, beforeReadFile, afterAgentThought
 *                                      the turn runs
 *   afterAgentResponse                 the reply's text
 *   stop                               the turn ended (`status`: completed, aborted, error)
 *   sessionEnd                         the process exits (settled)
 *
 * Cursor's files are weak on the present, so these carry the turn. None of them reports a
 * permission prompt waiting.
 */
import type {Contribution, HookEvent, HookReducer} from '../../core/ingest/adapter.js'
import type {FactSource, HardBlock} from '../../core/model/types.js'
import {contributionOf, endSession, type HookFacts, hookMoments, hookSource, settle, settledFact, startTurn} from '../kit/hook-steps.js'
import type {CursorHookFacts} from './facts.js'
import {clip, oneLine, str} from './text.js'

export {HOOK_PRIORITY} from '../kit/hook-steps.js'

export interface CursorHookState {
  event: string | null
  at: number | null
  activityAt: number | null
  settled: boolean | null
  settledAt: number | null
  settledEvent: string | null
  error: {text: string; at: number} | null
  promptAt: number | null
  exitedAt: number | null
  cwd: string | null
  model: string | null
  lastAssistantText: string | null
  textAt: number | null
}

export function initCursorHooks(): CursorHookState {
  return {
    activityAt: null,
    at: null,
    cwd: null,
    error: null,
    event: null,
    exitedAt: null,
    lastAssistantText: null,
    model: null,
    promptAt: null,
    settled: null,
    settledAt: null,
    settledEvent: null,
    textAt: null,
  }
}

export function cursorHookSession(event: HookEvent): string | null {
  const p = event.payload
  return str(p['conversation_id']) ?? str(p['session_id']) ?? str(p['conversationId'])
}

const RUNNING = new Set([
  'preToolUse',
  'postToolUse',
  'postToolUseFailure',
  'beforeShellExecution',
  'afterShellExecution',
  'beforeMCPExecution',
  'afterMCPExecution',
  'afterFileEdit',
  'beforeReadFile',
  'afterAgentThought',
  'subagentStart',
  'subagentStop',
  'preCompact',
])

export function reduceCursorHook(prev: CursorHookState, event: HookEvent): CursorHookState {
  const p = event.payload
  const name = str(p['hook_event_name'])
  if (name === null) return prev
  const at = event.at
  const s: CursorHookState = {...prev, at, event: name}
  const roots = p['workspace_roots']
  const cwd = (Array.isArray(roots) ? str(roots[0]) : null) ?? str(p['cwd'])
  if (cwd !== null) s.cwd = cwd
  s.model = str(p['model']) ?? s.model
  if (name !== 'sessionStart' && name !== 'sessionEnd') s.activityAt = at

  if (RUNNING.has(name)) {
    settle(s, false, at, name)
    return s
  }

  switch (name) {
    case 'sessionStart': {
      s.exitedAt = null
      settle(s, true, at, name)
      break
    }

    case 'beforeSubmitPrompt': {
      s.error = null
      startTurn(s, at, name)
      break
    }

    case 'afterAgentResponse': {
      const text = str(p['text'])
      if (text !== null && text.trim() !== '') {
        s.lastAssistantText = clip(text.trim(), 4000)
        s.textAt = at
      }

      break
    }

    case 'stop': {
      settle(s, true, at, name)
      if (str(p['status']) === 'error')
        s.error = {at, text: oneLine(str(p['error']) ?? str(p['message']) ?? '', 500) ?? 'the agent stopped with an error'}
      break
    }

    case 'sessionEnd': {
      endSession(s, at, name)
      break
    }

    default:
  }

  return s
}

export function cursorHookContribution(s: CursorHookState, nativeId: string): Contribution<CursorHookFacts> | null {
  if (s.event === null) return null
  const sources: Record<string, FactSource> = {}
  // The error comes with stop (the state keeps no event for it).
  const error: HardBlock | null = s.error === null ? null : {at: s.error.at, source: hookSource('stop'), text: s.error.text}
  const facts: HookFacts = {error}
  if (error !== null) sources['error'] = error.source
  settledFact(s, facts, sources)

  if (s.lastAssistantText !== null) facts.lastAssistantText = s.lastAssistantText
  facts.sources = sources
  // Not facts (hooks alone, with no file of the agent's own, do not make a session): hookMoments.
  const extra: CursorHookFacts = {
    ...hookMoments(s),
    model: s.model,
    textAt: s.textAt,
  }
  return contributionOf(nativeId, facts, extra)
}

export const cursorHooks: HookReducer<CursorHookState> = {
  contribution: cursorHookContribution,
  init: initCursorHooks,
  reduce: reduceCursorHook,
  sessionOf: cursorHookSession,
}
