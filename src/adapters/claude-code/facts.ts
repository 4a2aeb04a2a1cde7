/**
 * Typed per-source facts: what each Claude Code source carries for compose
 * beside its SessionFacts, as one discriminated union on `role`. The parsers write these
 * (transcript.ts, registry.ts, and the hook reducer in hooks.ts); compose reads them through
 * `claudeFacts`/`factsOf` (the kit's facts reader), the one place a stored contribution's `extra`
 * is trusted as this shape.
 */
import type {HookMoments} from '../kit/hook-steps.js'
import {factsReader} from '../kit/facts-reader.js'

/** The transcript's turn state beyond the facts. */
export type TranscriptFacts = {
  readonly role: 'transcript'
  /** Background subagents launched and not reported finished. */
  readonly backgroundAgents: number
  readonly backgroundTasks: readonly string[]
  /** The last line is a `turn_duration` written at this time (else null). */
  readonly endAt: number | null
  /** The newest open tool call that is not a question. */
  readonly openTool: {readonly name: string; readonly at: number | null} | null
  /** The last turn_duration's count of subagents still running. */
  readonly pendingAgents: number
  readonly lastConvAt: number | null
  readonly lastInputAt: number | null
  readonly last: string
  readonly openTools: number
  readonly titleRank: string | null
}

/** The process registry `~/.claude/sessions/<pid>.json` (registry.ts). */
export type RegistryFacts = {
  readonly role: 'registry'
  /** The raw status (`busy` | `idle` | `waiting` | …). */
  readonly status: string | null
  /**
   * 2.1.328 writes `permission prompt` (a tool-permission dialog, also a subagent's) and
   * `input needed` (an AskUserQuestion dialog); older builds `approve <Tool>`, `dialog open`,
   * `worker request`, `sandbox request`.
   */
  readonly waitingFor: string | null
  /** When the status last changed (epoch ms). */
  readonly statusAt: number | null
  /** A name the user gave (`nameSource` is not `derived`). */
  readonly name: string | null
  /**
   * Kept here rather than in facts: the engine creates a session only from a file that describes
   * the conversation, and a registry alone (a `claude` at its first prompt) does not.
   */
  readonly cwd: string | null
  /** `interactive` (a TUI) or null; `entrypoint` is `cli` for a TUI, `sdk-cli` for `claude -p`. */
  readonly kind: string | null
  readonly entrypoint: string | null
}

/** A subagent's `agent-<id>.meta.json` (registry.ts). */
export type SubagentMetaFacts = {
  readonly role: 'subagent-meta'
  readonly agentType: string | null
  readonly description: string | null
  /** `finished: true` once the subagent's run ended and its result went to the parent (2.1.328). */
  readonly finished: boolean
  /** `requestNonInteractive: true`: launched to report to its parent, not to talk to a person. */
  readonly nonInteractive: boolean
  readonly path: string
}

/** The hook reducer's moments (hooks.ts). */
export type ClaudeHookFacts = HookMoments & {
  /** The open approval / question is a subagent's (its hook carried `agent_id`): that id. */
  readonly approvalAgent: string | null
  readonly questionAgent: string | null
  readonly sessionStartAt: number | null
}

export type ClaudeFacts = TranscriptFacts | RegistryFacts | SubagentMetaFacts | ClaudeHookFacts

const reader = factsReader<ClaudeFacts, 'role'>('role', {hooks: true, registry: true, 'subagent-meta': true, transcript: true})

/** A contribution's Claude Code facts, by role (null: another source's, e.g. the screen's). */
export const claudeFacts = reader.all

/** Narrowed to one role (null: the contribution is not that source's). */
export const factsOf = reader.of
