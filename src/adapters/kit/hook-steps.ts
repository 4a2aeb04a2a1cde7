/**
 * The steps every hook reducer (src/adapters/<agent>/hooks.ts) takes, once: settle or start a
 * turn, open and close asks (a permission prompt, a question), a session starting and ending,
 * and the hook-sourced facts of a contribution. Each agent's reducer decides which of its events
 * is which step; these say what the step does to the state.
 *
 * States are plain records stored between events (the spool keeps them as JSON), so a step only
 * writes fields its state type declares: a state without asks is never given an `approval`.
 */
import type {Contribution, ContributionExtra} from '../../core/ingest/adapter.js'
import type {FactSource, HardBlock, SessionFacts} from '../../core/model/types.js'

/** The priority of hook contributions (above the files, which are older news). */
export const HOOK_PRIORITY = 20

/** An ask or an error a hook reported: its text, when, and on which event. */
export interface HookBlock {
  readonly text: string
  readonly at: number
  readonly event: string
  /** The subagent whose dialog it is, when a subagent asked (its `agent_id` in the payload). */
  readonly agent?: string
}

/** Settled (true) or running (false) as of `settledAt`, by `settledEvent`; null before any turn event. */
export interface Settling {
  settled: boolean | null
  settledAt: number | null
  settledEvent: string | null
}

/** The open asks: a permission prompt, a question to the user. */
export interface Asking {
  approval: HookBlock | null
  question: HookBlock | null
  /** The tool whose end closes the question, where the reducer tracks it. */
  askTool?: string | null
}

export interface Living extends Settling {
  /** When the process exited (SessionEnd), null while it runs. */
  exitedAt: number | null
}

export interface Prompting extends Living {
  promptAt: number | null
}

export interface Starting extends Living, Asking {
  sessionStartAt: number | null
}

/** The turn is settled (true) or running (false) as of this event. */
export function settle(s: Settling, settled: boolean, at: number, event: string): void {
  s.settled = settled
  s.settledAt = at
  s.settledEvent = event
}

/** The question is answered (with the tool that asked it, where tracked). */
export function closeQuestion(s: Asking): void {
  s.question = null
  if (s.askTool !== undefined) s.askTool = null
}

/** Every open ask is over (a new prompt, a new process, the process gone, the turn ended). */
export function closeAsks(s: Asking): void {
  s.approval = null
  closeQuestion(s)
}

/**
 * The asks of one asker are over: the session's own (`agent` undefined: its turn ended, while a
 * subagent's ask still waits for its answer) or one subagent's (it stopped).
 */
export function closeAsksOf(s: Asking, agent: string | undefined): void {
  if (s.approval?.agent === agent) s.approval = null
  if (s.question?.agent === agent) closeQuestion(s)
}

function askBlock(at: number, event: string, text: string, agent?: string): HookBlock {
  return agent === undefined ? {at, event, text} : {at, event, text, agent}
}

/** A permission prompt waits (the session blocks on it): what it asks about. */
export function openApproval(s: Asking, at: number, event: string, text: string, agent?: string): void {
  s.approval = askBlock(at, event, text, agent)
}

/** The agent asks the user a question. */
export function openQuestion(s: Asking, at: number, event: string, text: string, agent?: string): void {
  s.question = askBlock(at, event, text, agent)
}

/** A tool starts or finishes: the turn runs, and any earlier permission prompt was answered. */
export function toolMoved(s: Settling & Pick<Asking, 'approval'>, at: number, event: string): void {
  s.approval = null
  settle(s, false, at, event)
}

/** A new process at its prompt: settled, nothing asked yet. */
export function startSession(s: Starting, at: number, event: string): void {
  s.sessionStartAt = at
  s.exitedAt = null
  closeAsks(s)
  settle(s, true, at, event)
}

/** The user's prompt starts a turn: working. (Asks and errors are the reducer's to close.) */
export function startTurn(s: Prompting, at: number, event: string): void {
  s.promptAt = at
  s.exitedAt = null
  settle(s, false, at, event)
}

/** The process exits: whatever the turn was doing is over, as after an interrupt. */
export function endSession(s: Living, at: number, event: string): void {
  s.exitedAt = at
  settle(s, true, at, event)
}

// ---------------------------------------------------------------------------------------------
// The contribution

/** The moments every hook reducer keeps in its contribution (each adapter's facts.ts reads them). */
export type HookMoments = {
  readonly role: 'hooks'
  readonly activityAt: number | null
  readonly at: number | null
  /** Not a fact: hooks alone (no file of the agent's own) do not make a session. */
  readonly cwd: string | null
  readonly event: string | null
  readonly exitedAt: number | null
  readonly promptAt: number | null
  readonly settledAt: number | null
}

/** What a hook state holds of those moments. */
export type MomentsState = {readonly [K in Exclude<keyof HookMoments, 'role'>]: HookMoments[K]}

/** The moments of a hook state, as its contribution carries them (the rest of the extra is the agent's own). */
export function hookMoments(s: MomentsState): HookMoments {
  return {
    activityAt: s.activityAt,
    at: s.at,
    cwd: s.cwd,
    event: s.event,
    exitedAt: s.exitedAt,
    promptAt: s.promptAt,
    role: 'hooks',
    settledAt: s.settledAt,
  }
}

export type HookFacts = {-readonly [K in keyof SessionFacts]?: SessionFacts[K]}

/** The source of a fact a hook event gave. */
export function hookSource(event: string): FactSource {
  return {kind: 'hook', ref: event}
}

/** A stored ask or error as a fact. */
export function hardBlock(b: HookBlock | null): HardBlock | null {
  return b === null ? null : {at: b.at, source: hookSource(b.event), text: b.text}
}

/** Name the source of each block fact that is set, in the order given. */
export function blockSources(
  facts: HookFacts,
  sources: Record<string, FactSource>,
  keys: readonly ('approval' | 'question' | 'error')[],
): void {
  for (const key of keys) {
    const b = facts[key]
    if (b != null) sources[key] = b.source
  }
}

/** The settled fact, once a turn event has said it. */
export function settledFact(s: Settling, facts: HookFacts, sources: Record<string, FactSource>): void {
  if (s.settled !== null && s.settledEvent !== null) {
    facts.settled = s.settled
    sources['settled'] = hookSource(s.settledEvent)
  }
}

/**
 * A hook contribution: the facts, and what is not a fact (cwd and timings: hooks alone do not make
 * a session), typed as the adapter's hook facts (its `facts.ts`).
 */
export function contributionOf<X extends ContributionExtra>(nativeId: string, facts: HookFacts, extra: X): Contribution<X> {
  return {extra, facts, nativeId, priority: HOOK_PRIORITY}
}
