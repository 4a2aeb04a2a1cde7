/**
 * Codex push signals (docs/hooks.md), as the hook spool hands them over:
 * - legacy `notify`: `{"type":"agent-turn-complete","thread-id","turn-id","cwd",
 *   "last-assistant-message",…}` after every turn;
 * - lifecycle hooks: `{hook_event_name, session_id, turn_id, cwd, model, …}` for SessionStart,
 *   UserPromptSubmit, PreToolUse, PermissionRequest (`tool_name`), PostToolUse, Stop
 *   (`last_assistant_message`), and in 0.169 also Pre/PostModelRequest (`status`, `error`),
 *   Interrupt, SessionEnd, SubagentStart/Stop.
 *
 * Only the latest turn-level event per session is kept. Its facts are stamped with the receive
 * time; compose lets them stand only while the transcript has nothing newer (never latching).
 */
import type {Contribution, HookEvent, HookReducer} from '../../core/ingest/adapter.js'
import type {FactSource, HardBlock} from '../../core/model/types.js'
import {contributionOf, type HookFacts, hookSource} from '../kit/hook-steps.js'
import type {CodexHookFacts} from './facts.js'
import {clip, str} from './text.js'

export {HOOK_PRIORITY} from '../kit/hook-steps.js'

export interface HookTurn {
  readonly event: string
  readonly at: number
  readonly turnId: string | null
  readonly settled: boolean
  /** Pending permission prompt: the tool name. */
  readonly approval: string | null
  readonly lastAssistantText: string | null
  /** A new prompt: clears an earlier error banner, starts a turn. */
  readonly prompted: boolean
  /** PostModelRequest `status: "failed"`: the request's error (0.169 sends no Stop after it). */
  readonly error?: string | null
}

export interface HookSession {
  readonly turn: HookTurn | null
  readonly model: string | null
  readonly cwd: string | null
  readonly at: number
}

export interface CodexHookState {
  readonly sessions: Record<string, HookSession>
}

function eventName(payload: Readonly<Record<string, unknown>>): string | null {
  if (payload.type === 'agent-turn-complete') return 'agent-turn-complete'
  return str(payload.hook_event_name)
}

export function hookSessionOf(event: HookEvent): string | null {
  const p = event.payload
  return str(p['thread-id']) ?? str(p.thread_id) ?? str(p.session_id) ?? str(p.sessionId)
}

function turnOf(name: string, p: Readonly<Record<string, unknown>>, at: number): HookTurn | null {
  const turnId = str(p['turn-id']) ?? str(p.turn_id)
  const base = {approval: null, at, event: name, lastAssistantText: null, prompted: false, settled: false, turnId}
  switch (name) {
    case 'agent-turn-complete':
    case 'Stop': {
      const text = str(p['last-assistant-message']) ?? str(p.last_assistant_message)
      return {...base, lastAssistantText: text === null ? null : clip(text.trim(), 4000), settled: true}
    }

    case 'UserPromptSubmit':
      return {...base, prompted: true}
    case 'PreToolUse':
    case 'PostToolUse':
    case 'PreModelRequest':
      return base
    case 'PostModelRequest': {
      // 0.169: `status` completed | failed (with `error: "unexpected status 401 …"`) | cancelled
      // (Esc). A failed turn ends with no Stop: the failure is the last word until a retry's
      // PreModelRequest or a new prompt.
      const st = str(p.status)
      if (st === 'failed') return {...base, error: clip((str(p.error) ?? 'model request failed').trim(), 500), settled: true}
      if (st === 'cancelled') return {...base, settled: true}
      return base
    }

    case 'Interrupt':
    case 'SessionEnd':
      return {...base, settled: true}
    case 'PermissionRequest':
      return {...base, approval: str(p.tool_name) ?? 'tool'}
    default:
      return null
  }
}

export function reduceHook(state: CodexHookState, event: HookEvent): CodexHookState {
  const id = hookSessionOf(event)
  const name = eventName(event.payload)
  if (id === null || name === null) return state
  const p = event.payload
  const prev = state.sessions[id]
  const turn = turnOf(name, p, event.at)
  // SubagentStop and events this reducer does not know leave the turn as it was.
  if (turn === null && name !== 'SessionStart') return state
  const next: HookSession = {
    at: Math.max(prev?.at ?? 0, event.at),
    cwd: str(p.cwd) ?? prev?.cwd ?? null,
    model: str(p.model) ?? prev?.model ?? null,
    turn: turn !== null && (prev?.turn == null || turn.at >= prev.turn.at) ? turn : (prev?.turn ?? null),
  }
  return {sessions: {...state.sessions, [id]: next}}
}

export function hookContribution(state: CodexHookState, nativeId: string): Contribution<CodexHookFacts> | null {
  const entry = state.sessions[nativeId]
  if (!entry) return null
  const facts: HookFacts = {}
  const sources: Record<string, FactSource> = {}
  // No cwd among the facts: a hook alone must not make a session (every Codex thread has a
  // rollout; the title side thread of 0.169, `thread_source: "thread_title"`, has none but fires
  // hooks and notify). Compose fills the cwd in from `extra` where the rollout has none.
  if (entry.model !== null) facts.model = entry.model
  const turn = entry.turn
  if (turn !== null) {
    const source = hookSource(turn.event)
    const approval: HardBlock | null = turn.approval === null ? null : {at: turn.at, source, text: turn.approval}
    facts.lastActivityAt = turn.at
    facts.settled = turn.settled
    facts.approval = approval
    sources.settled = source
    sources.approval = source
    sources.lastActivityAt = source
    if (turn.lastAssistantText !== null) {
      facts.lastAssistantText = turn.lastAssistantText
      sources.lastAssistantText = source
    }

    if (turn.error) {
      facts.error = {at: turn.at, source, text: turn.error}
      sources.error = source
    } else if (turn.prompted) {
      facts.error = null
      facts.turnStartedAt = turn.at
      sources.error = source
      sources.turnStartedAt = source
    }
  }

  facts.sources = sources
  const extra: CodexHookFacts = {at: turn?.at ?? entry.at, codex: 'hook', cwd: entry.cwd, turnId: turn?.turnId ?? null}
  return contributionOf(nativeId, facts, extra)
}

export const codexHooks: HookReducer<CodexHookState> = {
  contribution: hookContribution,
  init: () => ({sessions: {}}),
  reduce: reduceHook,
  sessionOf: hookSessionOf,
}
