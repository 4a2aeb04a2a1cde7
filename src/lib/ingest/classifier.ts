/**
 * The settle classifier as the ingesters use it: the config's command and timeout,
 * and the runner `cast daemon` and `cast sessions -w` hand to their live ingester. The runner
 * itself is src/core/ingest/classifier.ts.
 */
import {DEFAULT_SETTLE_TIMEOUT_MS, type SettleClassifierConfig, SettleRunner} from '../../core/ingest/classifier.js'
import type {Reason} from '../../core/model/types.js'
import type {Store} from '../../core/store/store.js'
import type {CastConfig} from '../home/config.js'
import type {Env} from '../home/env.js'

export function settleConfigOf(config: CastConfig): SettleClassifierConfig | null {
  if (config.settleClassifier === null || config.settleClassifier.length === 0) return null
  return {command: config.settleClassifier, timeoutMs: config.settleClassifierTimeoutMs ?? DEFAULT_SETTLE_TIMEOUT_MS}
}

/** The runner for this store, or undefined when no classifier is configured (or the config is unreadable). */
export async function settleRunnerFor(
  store: Store,
  env: Env,
  clock: () => number,
  log?: (m: string) => void,
): Promise<SettleRunner | undefined> {
  const {loadConfig} = await import('../home/config.js')
  let config: CastConfig
  try {
    config = await loadConfig(env)
  } catch {
    return undefined
  }

  const sc = settleConfigOf(config)
  if (sc === null) return undefined
  return new SettleRunner(store, {clock, config: sc, env: {...process.env, ...env}, log})
}

export interface RestExplanation {
  /** declaration: the agent's cast state; classifier: the settle classifier's verdict; structure: a trigger, background work or a child; fallback: nothing judged it. */
  readonly decided_by: 'declaration' | 'classifier' | 'structure' | 'fallback'
  readonly note: string
  readonly classifier: {
    readonly configured: boolean
    readonly verdict: string | null
    readonly why: string | null
    readonly error: string | null
    readonly at: string | null
    readonly ms: number | null
  } | null
  /** The Stop hook nudged the current turn (docs/hooks.md). */
  readonly nudged: boolean
}

/** Who decided a rule 7 (settled) answer, by its reason; null: another rule gave it. Every reason says. */
const REST_REASONS: Readonly<Record<Reason, RestExplanation['decided_by'] | null>> = {
  background_work: 'structure',
  child_producing: 'structure',
  declared_blocked: 'declaration',
  declared_done: 'declaration',
  declared_dormant: 'declaration',
  delivered: 'classifier',
  settled: 'fallback',
  blocked_unclear: 'declaration',
  trigger: 'structure',
  unverified_claim: 'declaration',
  approval: null,
  dead: null,
  empty: null,
  error: null,
  hibernated: null,
  killed: null,
  producing: null,
  question: null,
  queued: null,
  snooze_expired: null,
  stalled: null,
  snoozed: null,
  turn_pending: null,
  unresponsive: null,
  user_verdict: null,
}

/** For `cast explain`: null unless rule 7 (settled) gave the state. */
export async function restOf(
  store: Store,
  row: import('../../core/store/store.js').SessionRow,
  reason: Reason,
  env: Env,
  rule?: number,
): Promise<RestExplanation | null> {
  // A reason another rule gave (blocked_unclear comes from rule 5 too) is not rule 7's to explain.
  if (rule !== undefined && rule !== 7) return null
  // A reason this build does not know (a store written by a newer cast) explains nothing.
  const by = REST_REASONS[reason] ?? null
  if (by === null) return null
  const {getSettleVerdict} = await import('../../core/store/settle-verdicts.js')
  const {wasNudged} = await import('./turn-marks.js')
  const {loadConfig} = await import('../home/config.js')
  let configured = false
  try {
    configured = settleConfigOf(await loadConfig(env)) !== null
  } catch {
    configured = false
  }

  const v = getSettleVerdict(store, row.id, row.facts.turnIndex)
  const classifier =
    v === null && !configured
      ? null
      : {
          at: v === null ? null : new Date(v.at).toISOString(),
          configured,
          error: v?.error ?? null,
          ms: v?.ms ?? null,
          verdict: v?.verdict ?? null,
          why: v?.why ?? null,
        }
  const nudged = wasNudged(env, row.agent, row.nativeId)
  let note: string
  if (by === 'declaration')
    note = `the agent declared ${row.records.declaration?.status ?? '?'} in turn ${row.records.declaration?.turnIndex ?? '?'}${nudged ? ' (after the Stop hook nudged it)' : ''}`
  else if (by === 'classifier') note = `the settle classifier judged turn ${row.facts.turnIndex} delivered${v?.why ? `: ${v.why}` : ''}`
  else if (by === 'structure') note = `a machine wakes it (${reason})`
  else if (v?.error)
    note = `the settle classifier failed on turn ${row.facts.turnIndex} (${v.error}); nothing else judged it, so it needs you`
  else if (v?.verdict) note = `the settle classifier judged turn ${row.facts.turnIndex} ${v.verdict}${v.why ? `: ${v.why}` : ''}`
  else if (configured)
    note = `no declaration; the settle classifier has not judged turn ${row.facts.turnIndex} yet (it runs in cast daemon and cast sessions -w)`
  else note = `no declaration${nudged ? ' although the Stop hook nudged this turn' : ''} and no settle classifier configured`
  return {classifier, decided_by: by, note, nudged}
}
