/**
 * Typed per-source facts (issue 12 point 2): what each Codex source carries for compose beside
 * its SessionFacts, one discriminated union on `codex`. The rollout parser (rollout.ts), the
 * session index (session-index.ts) and the hook reducer (hooks.ts) write them; compose reads them
 * through `codexFacts`/`factsOf`, the one place a stored contribution's `extra` is trusted.
 */
import type {Contribution} from '../../core/ingest/adapter.js'

/** A rollout's turn state beyond the facts. */
export type RolloutFacts = {
  readonly codex: 'rollout'
  readonly archived: boolean
  readonly compactions: number
  readonly forkedFrom: string | null
  readonly format: string | null
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
export type HookFacts = {
  readonly codex: 'hook'
  /** When the hook fired (its turn's event, else the entry's). */
  readonly at: number
  /** Not a fact: compose fills the cwd in where the rollout has none. */
  readonly cwd: string | null
  readonly turnId: string | null
}

export type CodexFacts = RolloutFacts | IndexFacts | HookFacts

const KINDS: ReadonlySet<string> = new Set(['rollout', 'index', 'hook'])

/** A contribution's Codex facts (null: another source's, e.g. the screen's or the process scan's). */
export function codexFacts(c: Pick<Contribution, 'extra'>): CodexFacts | null {
  const kind = c.extra?.['codex']
  return typeof kind === 'string' && KINDS.has(kind) ? (c.extra as CodexFacts) : null
}

/** Narrowed to one source (null: the contribution is not that source's). */
export function factsOf<K extends CodexFacts['codex']>(
  c: Pick<Contribution, 'extra'> | null | undefined,
  kind: K,
): Extract<CodexFacts, {codex: K}> | null {
  const f = c == null ? null : codexFacts(c)
  return f?.codex === kind ? (f as Extract<CodexFacts, {codex: K}>) : null
}
