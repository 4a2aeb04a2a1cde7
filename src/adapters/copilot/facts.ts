/**
 * Typed per-source facts: what each Copilot CLI source carries for compose
 * beside its SessionFacts, one discriminated union on `role`. The parsers write them (events.ts,
 * workspace.ts, legacy.ts, and the hook reducer in hooks.ts); compose reads them through
 * `copilotFacts`/`factsOf`, the one place a stored contribution's `extra` is trusted as this shape.
 */
import type {HookMoments} from '../kit/hook-steps.js'
import {factsReader} from '../kit/facts-reader.js'

/** The event log's turn state beyond the facts (events.ts). */
export type EventsFacts = {
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
  /** An older flat `<id>.jsonl` rather than the folder's `events.jsonl`. */
  readonly flat: boolean
}

/** A subagent the event log started (a child session). */
export type SubagentFacts = {readonly role: 'subagent'}

/**
 * workspace.yaml (workspace.ts). All of it rides here, none in facts: the engine makes a session
 * only from a file that describes the conversation, and a workspace.yaml alone (a session folder
 * with no event log yet) does not.
 */
export type WorkspaceFacts = {
  readonly role: 'workspace'
  readonly ref: string
  readonly cwd: string | null
  readonly createdAt: number | null
  /** The session's name and whether the user gave it (`/rename`). */
  readonly name: string | null
  readonly userNamed: boolean
  readonly summary: string | null
  readonly updatedAt: number | null
}

/** `inuse.<pid>.lock`: its pid (the claim itself is the contribution's processClaim). */
export type LockFacts = {readonly role: 'lock'; readonly pid: number}

/** A ≤ 0.0.3xx session document (legacy.ts). */
export type LegacyFacts = {readonly role: 'legacy'}

/** The hook reducer's moments (hooks.ts). */
export type CopilotHookFacts = HookMoments & {
  readonly compactAt: number | null
  readonly sessionStartAt: number | null
}

export type CopilotFacts = EventsFacts | SubagentFacts | WorkspaceFacts | LockFacts | LegacyFacts | CopilotHookFacts

const reader = factsReader<CopilotFacts, 'role'>('role', {
  events: true,
  hooks: true,
  legacy: true,
  lock: true,
  subagent: true,
  workspace: true,
})

/** A contribution's Copilot facts, by role (null: another source's, e.g. the screen's). */
export const copilotFacts = reader.all

/** Narrowed to one role (null: the contribution is not that source's). */
export const factsOf = reader.of
