/**
 * The Claude Code sources as compose reads them: the transcripts merged, the hooks' moments, the
 * registry's status, and which process claim runs the session (compose.ts combines them).
 */
import type {CheckedContribution} from '../../core/ingest/adapter.js'
import type {FactSource, ProcessFacts, SessionFacts} from '../../core/model/types.js'
import {factsOf} from './facts.js'

export type Mutable<T> = {-readonly [K in keyof T]: T[K]}

/** Clock skew allowed between a registry write and a transcript line (same machine, so small). */
export const SLACK_MS = 1000

export const TITLE_RANKS: readonly string[] = ['custom', 'ai', 'summary', 'registry', 'meta', 'prompt']

export interface Transcript {
  readonly facts: Partial<SessionFacts>
  readonly lastConvAt: number | null
  readonly lastInputAt: number | null
  readonly titleRank: string | null
  /** The last line is a `turn_duration` written at this time (else null). */
  readonly endAt: number | null
  /** Background subagents launched and not reported finished; the last turn_duration's count. */
  readonly backgroundAgents: number
  readonly pendingAgents: number
  /** The newest open tool call that is not a question. */
  readonly openTool: string | null
}

export interface Registry {
  readonly c: CheckedContribution
  readonly status: string | null
  readonly waitingFor: string | null
  readonly statusAt: number | null
  readonly name: string | null
}

export interface Hooks {
  readonly facts: Partial<SessionFacts>
  readonly activityAt: number | null
  readonly event: string | null
  readonly promptAt: number | null
  readonly sessionStartAt: number | null
  readonly settledAt: number | null
  readonly exitedAt: number | null
  /** The open approval / question is a subagent's (its hook carried `agent_id`). */
  readonly approvalAgent: boolean
  readonly questionAgent: boolean
}

export function max(...values: (number | null | undefined)[]): number | null {
  let out: number | null = null
  for (const v of values) if (typeof v === 'number' && (out === null || v > out)) out = v
  return out
}

/** Several transcript files for one session are rare (a resume copied into a new file): the latest wins. */
export function mergeTranscripts(list: readonly CheckedContribution[]): Transcript | null {
  if (list.length === 0) return null
  const sorted = [...list].sort((a, b) => (a.facts.lastActivityAt ?? 0) - (b.facts.lastActivityAt ?? 0))
  let facts: Partial<SessionFacts> = {}
  let sources: Record<string, FactSource> = {}
  let parseErrors = 0
  for (const c of sorted) {
    facts = {...facts, ...definedOnly(c.facts)}
    sources = {...sources, ...c.facts.sources}
    parseErrors += c.facts.parseErrors ?? 0
  }
  const x = factsOf(sorted.at(-1), 'transcript')
  return {
    backgroundAgents: x?.backgroundAgents ?? 0,
    endAt: x?.endAt ?? null,
    facts: {...facts, parseErrors, sources},
    openTool: x?.openTool?.name ?? null,
    pendingAgents: x?.pendingAgents ?? 0,
    lastConvAt: x?.lastConvAt ?? null,
    lastInputAt: x?.lastInputAt ?? null,
    titleRank: x?.titleRank ?? null,
  }
}

export function definedOnly(facts: Partial<SessionFacts>): Partial<SessionFacts> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(facts)) if (value !== undefined && key !== 'sources') out[key] = value
  return out
}

/**
 * The process that runs (or ran) the session.
 *
 * A live claim wins (the newest one, if a session was resumed in two terminals). Otherwise the
 * newest dead claim: Claude Code deletes its registry file on a clean exit, so a file whose pid
 * is dead is a crash, and the session is reported with `alive: false` (the classifier says
 * `dead`) — also when the transcript's last line is newer than the file, since a running Claude
 * Code rewrites the file only when its status changes and a crash mid-turn leaves exactly that.
 * A dead claim stands while the transcript's turn is open. Otherwise it is ignored only when
 * there is evidence of a later run it knows nothing about:
 * a prompt submitted after its last status write (the dead process would have written `busy`
 * then), or a SessionStart hook after it. That later run exited cleanly (its own file is gone),
 * so the transcript and hooks speak for the session.
 */
export function pickProcess(claims: readonly CheckedContribution[], t: Transcript | null, hooks: Hooks | null): CheckedContribution | null {
  const started = (c: CheckedContribution): number => c.processClaim?.startedAt ?? 0
  const alive = claims.filter((c) => c.processAlive === true).sort((a, b) => started(b) - started(a))
  if (alive[0] !== undefined) return alive[0]
  const dead = [...claims].sort((a, b) => started(b) - started(a))[0]
  if (dead?.processClaim === undefined) return null
  const heartbeat = dead.processClaim.heartbeatAt
  const lastWrite = heartbeat ?? dead.processClaim.startedAt
  const prompt = max(t?.facts.turnStartedAt, hooks?.promptAt)
  // A turn still open with no live registry: nothing runs it (a later run that took it over
  // would have a live registry of its own; one that exited cleanly would have ended the turn).
  // The dead process is the answer even when it died before writing `busy` for this prompt.
  if (t?.facts.settled === false && hooks?.exitedAt == null) return dead
  if (heartbeat !== null && prompt !== null && prompt > heartbeat + SLACK_MS) return null
  if (lastWrite !== null && hooks?.sessionStartAt != null && hooks.sessionStartAt > lastWrite + SLACK_MS) return null
  return dead
}

export function processFacts(c: CheckedContribution, hooks: Hooks | null): ProcessFacts | null {
  const claim = c.processClaim
  if (claim === undefined) return null
  const alive = c.processAlive === true
  const lastWrite = claim.heartbeatAt ?? claim.startedAt ?? 0
  const clean = hooks?.exitedAt != null && hooks.exitedAt >= lastWrite
  return {
    alive,
    exited: alive ? null : clean ? 'clean' : 'crash',
    heartbeatAt: claim.heartbeatAt,
    pid: claim.pid,
    source: claim.source,
    status: claim.status,
  }
}

export interface Candidate<T> {
  readonly value: T
  readonly at: number
  readonly source: FactSource
}

/** The newest candidate; on a tie the later one in the list (higher priority). */
export function newest<T>(candidates: readonly (Candidate<T> | null)[]): Candidate<T> | null {
  let out: Candidate<T> | null = null
  for (const c of candidates) if (c !== null && (out === null || c.at >= out.at)) out = c
  return out
}
