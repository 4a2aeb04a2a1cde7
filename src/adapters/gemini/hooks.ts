/**
 * Gemini CLI hook payloads (docs/hooks.md), reduced to what they say about a session.
 * Every payload carries `session_id`, `cwd`, `hook_event_name` and `timestamp`.
 *
 *   SessionStart                   at the prompt (settled); a new process
 *   BeforeAgent                    a turn starts (the user's prompt): working
 *   BeforeTool, AfterTool          the turn runs; a tool starting or finishing answers an
 *                                  earlier permission prompt
 *   Notification ToolPermission    a permission prompt waits (approval; an `ask_user` dialog is
 *                                  a question), until the next tool, turn or session event
 *   AfterAgent                     the turn ended (settled), with the final reply text
 *   PreCompress                    compaction (working)
 *   SessionEnd                     the CLI exits: whatever ran is over (settled)
 *
 * The file never shows a permission prompt (only finished tool calls are recorded), so the
 * Notification hook is the only source for one.
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
  hookMoments,
} from '../kit/hook-steps.js'
import type {GeminiHookFacts} from './facts.js'
import {clip, isObject, oneLine, str} from './text.js'

export {HOOK_PRIORITY, type HookBlock} from '../kit/hook-steps.js'

export interface GeminiHookState {
  event: string | null
  at: number | null
  /** The last event that shows the conversation moving (not SessionStart / SessionEnd). */
  activityAt: number | null
  settled: boolean | null
  settledAt: number | null
  settledEvent: string | null
  approval: HookBlock | null
  question: HookBlock | null
  promptAt: number | null
  sessionStartAt: number | null
  exitedAt: number | null
  compactAt: number | null
  cwd: string | null
  lastAssistantText: string | null
  /**
   * The question of an `ask_user` call, from BeforeTool's `tool_input`: 0.61's Notification for
   * it carries only `{"type":"ask_user","title":"Ask User"}`, never the questions.
   */
  pendingAsk?: string | null
}

export function initGeminiHooks(): GeminiHookState {
  return {
    activityAt: null,
    approval: null,
    at: null,
    compactAt: null,
    cwd: null,
    event: null,
    exitedAt: null,
    lastAssistantText: null,
    pendingAsk: null,
    promptAt: null,
    question: null,
    sessionStartAt: null,
    settled: null,
    settledAt: null,
    settledEvent: null,
  }
}

export function geminiHookSession(event: HookEvent): string | null {
  return str(event.payload['session_id']) ?? str(event.payload['sessionId'])
}

/**
 * What a ToolPermission notification asks about, from its confirmation details: `exec`
 * ({command, rootCommand}), `edit` ({fileName}), `mcp` ({serverName, toolName}), `info`
 * ({urls}), else the dialog's title or the message.
 */
export function permissionText(p: Readonly<Record<string, unknown>>): string {
  const d = isObject(p['details']) ? p['details'] : {}
  const line = (v: unknown): string | null => (typeof v === 'string' ? oneLine(v, 160) : null)
  const urls = Array.isArray(d['urls']) ? d['urls'] : []
  switch (d['type']) {
    case 'exec':
      return `shell: ${line(d['command']) ?? line(d['rootCommand']) ?? '?'}`
    case 'edit':
      return `edit: ${line(d['fileName']) ?? line(d['filePath']) ?? '?'}`
    case 'mcp':
      return line(d['toolDisplayName']) ?? ([str(d['serverName']), str(d['toolName'])].filter(Boolean).join('.') || 'mcp tool')
    case 'info':
      return `fetch: ${line(urls[0]) ?? line(d['prompt']) ?? '?'}`
    default:
      return line(d['toolName']) ?? line(d['title']) ?? line(p['message']) ?? 'tool'
  }
}

/** An `ask_user` confirmation is the agent asking the user a question, not a permission prompt. */
function questionText(p: Readonly<Record<string, unknown>>, pending: string | null): string | null {
  const d = p['details']
  if (!isObject(d) || d['type'] !== 'ask_user') return null
  if (!Array.isArray(d['questions']) && typeof d['question'] !== 'string' && pending !== null) return pending
  const qs = d['questions']
  const first: unknown = Array.isArray(qs) ? qs[0] : null
  const q = (isObject(first) ? str(first['question']) : null) ?? str(d['question']) ?? str(d['title']) ?? str(p['message'])
  return (q === null ? null : oneLine(q, 500)) ?? 'Question'
}

/** BeforeTool of `ask_user`: the first question of its `tool_input` (`{questions: [{question, …}]}`). */
function askOf(p: Readonly<Record<string, unknown>>): string | null {
  if (str(p['tool_name']) !== 'ask_user') return null
  const input = p['tool_input']
  const qs = isObject(input) ? input['questions'] : null
  const first: unknown = Array.isArray(qs) ? qs[0] : null
  const q = isObject(first) ? str(first['question']) : null
  return q === null ? null : oneLine(q, 500)
}

export function reduceGeminiHook(prev: GeminiHookState, event: HookEvent): GeminiHookState {
  const p = event.payload
  const name = str(p['hook_event_name'])
  if (name === null) return prev
  const at = event.at
  const s: GeminiHookState = {...prev, at, event: name}
  const cwd = str(p['cwd'])
  if (cwd !== null) s.cwd = cwd
  if (name !== 'SessionStart' && name !== 'SessionEnd') s.activityAt = at

  switch (name) {
    case 'SessionStart': {
      startSession(s, at, name)
      break
    }

    case 'BeforeAgent': {
      closeAsks(s)
      startTurn(s, at, name)
      break
    }

    case 'BeforeTool':
    case 'AfterTool': {
      closeAsks(s)
      settle(s, false, at, name)
      s.pendingAsk = name === 'BeforeTool' ? askOf(p) : null
      break
    }

    case 'Notification': {
      if (str(p['notification_type']) !== 'ToolPermission') break
      const question = questionText(p, s.pendingAsk ?? null)
      if (question === null) openApproval(s, at, name, permissionText(p))
      else openQuestion(s, at, name, question)
      break
    }

    case 'AfterAgent': {
      closeAsks(s)
      settle(s, true, at, name)
      const text = str(p['prompt_response'])
      if (text !== null && text.trim() !== '') s.lastAssistantText = clip(text.trim(), 4000)
      break
    }

    case 'PreCompress': {
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

export function geminiHookContribution(s: GeminiHookState, nativeId: string): Contribution<GeminiHookFacts> | null {
  if (s.event === null) return null
  const sources: Record<string, FactSource> = {}
  const facts: HookFacts = {approval: hardBlock(s.approval), question: hardBlock(s.question)}
  blockSources(facts, sources, ['approval', 'question'])
  settledFact(s, facts, sources)

  if (s.lastAssistantText !== null) facts.lastAssistantText = s.lastAssistantText
  facts.sources = sources
  // Not facts (hooks alone, with no file of the agent's own, do not make a session): hookMoments.
  const extra: GeminiHookFacts = {
    ...hookMoments(s),
    compactAt: s.compactAt,
    sessionStartAt: s.sessionStartAt,
  }
  return contributionOf(nativeId, facts, extra)
}

export const geminiHooks: HookReducer<GeminiHookState> = {
  contribution: geminiHookContribution,
  init: initGeminiHooks,
  reduce: reduceGeminiHook,
  sessionOf: geminiHookSession,
}
