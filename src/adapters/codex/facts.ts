/**
 * Typed per-source facts: what each Codex source carries for compose beside
 * its SessionFacts, one discriminated union on `codex`. The rollout parser (rollout.ts), the
 * session index (session-index.ts) and the hook reducer (hooks.ts) write them; compose reads them
 * through `factsOf` (the kit's facts reader), the one place a stored contribution's
 * `extra` is trusted.
 */
import {factsReader} from '../kit/facts-reader.js'

/** A rollout's turn state beyond the facts. */
export type RolloutFacts = {
  readonly codex: 'rollout'
  readonly archived: boolean
  readonly compactions: number
  readonly forkedFrom: string | null
  readonly format: string | null
  /**
   * An escalated `exec_command` (`sandbox_permissions: "require_escalated"`) with no output yet,
   * in a turn whose `approval_policy` asks the user (on-request, untrusted): the command.
   */
  readonly escalated: {readonly text: string; readonly at: number; readonly offset: number} | null
  readonly openCalls: number
  /** The newest line that shows the session moving (orders hook events against the file). */
  readonly progressAt: number | null
  readonly rolledBackTurns: number
  readonly subagent: string | null
  readonly turnId: string | null
}

/** A /rename title from session_index.jsonl. */
export type IndexFacts = {
  readonly codex: 'index'
  readonly title: string
  readonly offset: number
  readonly ref: string
}

/** The hook reducer's moment (hooks.ts). */
export type CodexHookFacts = {
  readonly codex: 'hook'
  /** When the hook fired (its turn's event, else the entry's). */
  readonly at: number
  /** Not a fact: compose fills the cwd in where the rollout has none. */
  readonly cwd: string | null
  readonly turnId: string | null
}

export type CodexFacts = RolloutFacts | IndexFacts | CodexHookFacts

const reader = factsReader<CodexFacts, 'codex'>('codex', {hook: true, index: true, rollout: true})

/** A contribution's facts of one source (null: another source's, e.g. the screen's or the process scan's). */
export const factsOf = reader.of
