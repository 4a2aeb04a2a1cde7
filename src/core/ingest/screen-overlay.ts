/**
 * The screen overlay (pure): what a pane showed, stored as a `screen://` contribution, laid over a
 * session's composed facts where no better source answers. The rules are in screen.ts's module
 * comment; the sweep that writes the observations is screen.ts, the pane tying pane-tie.ts.
 */
import {exhaustive} from '../model/exhaustive.js'
import {PRODUCING_STATUSES, type Agent, type FactSource, type HardBlock, type SessionFacts} from '../model/types.js'
import type {Contribution} from './adapter.js'

/** A plain prompt must look the same for this long (two sweeps) before it settles a turn. */
export const IDLE_CONFIRM_MS = 1500
/** Activity this much later than the screen first showed a wait makes the wait stale. */
export const STALE_SLACK_MS = 2000

export type ScreenKind = 'approval' | 'question' | 'busy' | 'error' | 'idle'

/** What the screen shows, as the matcher (src/adapters/screen.ts) reads it. */
export interface ScreenReading {
  readonly kind: ScreenKind
  readonly text: string
}

/** The agents' screen patterns, compiled: process names, and the matcher. */
export interface ScreenMatcher {
  /** Process name -> agent. */
  readonly processes: ReadonlyMap<string, Agent>
  match(agent: Agent, screen: string): ScreenReading | null
}

/** What one pane showed, stored in the contribution's `extra.screen` (ScreenExtra) of `screen://tmux<socket>/<pane>`. */
export interface ScreenObservation {
  readonly kind: ScreenKind
  readonly text: string
  /** `%3`. */
  readonly pane: string
  /** `main:1.0`. */
  readonly address: string
  /** The agent process in the pane. */
  readonly pid: number
  /** Its start time (epoch ms), so pid reuse cannot keep a reading alive. */
  readonly startedAt?: number | null
  /** How the pane was tied to the session. */
  readonly via: 'pid' | 'cwd'
  /** When a sweep first saw this reading. */
  readonly since: number
  /** When a later sweep saw it unchanged, at least IDLE_CONFIRM_MS after `since`. */
  readonly confirmedAt: number | null
  /** What "unchanged" compares: kind and text (busy: kind only; idle: the whole bottom). */
  readonly sig: string
  /**
   * When a sweep found the pane's agent process gone (an agent whose process creates its session
   * and shares a server that holds the session's file: SweepOptions.bornAgents). Kept so that an
   * ask the process left open reads dead although the server still holds the file.
   */
  readonly gone?: number
}

/** The extra of a `screen://` contribution: what the pane showed. */
export type ScreenExtra = {readonly screen: ScreenObservation}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

const KINDS: {readonly [K in ScreenKind]: true} = {approval: true, busy: true, error: true, idle: true, question: true}
const KIND_NAMES: ReadonlySet<unknown> = new Set(Object.keys(KINDS))

/**
 * A stored reading as the sweep wrote it: the one place one is trusted as a ScreenObservation,
 * by the fields its readers use (the overlay, the sweep's next write, the claims of dialog.ts).
 */
function isScreenObservation(v: unknown): v is ScreenObservation {
  if (!isObject(v) || !KIND_NAMES.has(v['kind'])) return false
  return (
    typeof v['since'] === 'number' &&
    typeof v['pid'] === 'number' &&
    typeof v['pane'] === 'string' &&
    typeof v['address'] === 'string' &&
    typeof v['text'] === 'string'
  )
}

/** A contribution's screen reading (null: another source's); also a stored contribution's JSON, parsed. */
export function screenObservationOf(c: {readonly extra?: unknown}): ScreenObservation | null {
  const s = isObject(c.extra) ? c.extra['screen'] : undefined
  return isScreenObservation(s) ? s : null
}

/** The screen reading in a stored contribution's JSON (null: none, or not JSON). */
export function screenObservationIn(data: string): ScreenObservation | null {
  let c: unknown
  try {
    c = JSON.parse(data)
  } catch {
    return null
  }

  return isObject(c) ? screenObservationOf(c) : null
}

export function isScreenContribution(c: Contribution): boolean {
  return screenObservationOf(c) !== null
}

export function screenSource(o: Pick<ScreenObservation, 'pane' | 'address'>): FactSource {
  return {kind: 'screen', ref: o.address ? `tmux ${o.pane} (${o.address})` : `tmux ${o.pane}`}
}

/**
 * Lay what the screen shows over a session's composed facts, where no better source answers
 * (see the module comment). Pure; `contributions` may hold any sources, only screen ones count.
 */
export function applyScreen(facts: SessionFacts, contributions: readonly Contribution[]): SessionFacts {
  let obs: ScreenObservation | null = null
  for (const c of contributions) {
    const o = screenObservationOf(c)
    if (o && (obs === null || o.since > obs.since)) obs = o
  }

  if (obs === null) return facts
  if (typeof obs.gone === 'number') return askLeftBehind(facts, obs, obs.gone)
  // The pane the session shows in (`pane` in src/lib/views/views.ts), also where no fact comes from it
  // (a thread whose file says everything while its process is a shared daemon, in no pane).
  return overlay({...facts, sources: {...facts.sources, pane: screenSource(obs)}}, obs)
}

function overlay(facts: SessionFacts, obs: ScreenObservation): SessionFacts {
  const corrected = registryDialogClosed(facts, obs)
  if (corrected !== null) return corrected
  if (facts.approval !== null || facts.question !== null || facts.error !== null) return facts
  const asked = screenQuestionOverWorking(facts, obs)
  if (asked !== null) return asked
  if (facts.process !== null && facts.process.alive && facts.process.status !== null) return facts
  if (facts.settled) return facts
  const source = screenSource(obs)
  const stale = facts.lastActivityAt !== null && facts.lastActivityAt > obs.since + STALE_SLACK_MS
  switch (obs.kind) {
    case 'approval':
    case 'question':
    case 'error': {
      if (stale) return facts
      // An approval's text names what is to be approved (`approve rm -rf build?`): no question mark of its own.
      const text = (obs.kind === 'approval' ? obs.text.replace(/\?+$/, '') : obs.text) || obs.kind
      const block: HardBlock = {at: obs.since, source, text}
      return {...facts, [obs.kind]: block, sources: {...facts.sources, [obs.kind]: source}}
    }

    case 'idle': {
      if (stale || obs.confirmedAt === null) return facts
      return {...facts, settled: true, sources: {...facts.sources, settled: source}}
    }

    case 'busy': {
      if (facts.process !== null && !facts.process.alive) return facts
      const process = facts.process
        ? {...facts.process, source, status: 'working' as const}
        : {alive: true, exited: null, heartbeatAt: null, pid: obs.pid, source, status: 'working' as const}
      return {...facts, process, sources: {...facts.sources, process: source}}
    }

    default: {
      exhaustive(obs.kind)
    }
  }

  return facts
}

/**
 * A question on the screen while the agent's own state (a registry, a hook) says it is producing:
 * a background session blocked on a dialog keeps reporting busy, and the dialog on the pane wins.
 * The process keeps what its source said, so `cast explain` shows both (rule 4's note). Null when
 * it does not apply: a reading older than the files' last activity, or the process not producing.
 */
function screenQuestionOverWorking(facts: SessionFacts, obs: ScreenObservation): SessionFacts | null {
  if (obs.kind !== 'question' || facts.process === null || !facts.process.alive) return null
  if (facts.process.status === null || !PRODUCING_STATUSES.includes(facts.process.status)) return null
  if (facts.lastActivityAt !== null && facts.lastActivityAt > obs.since + STALE_SLACK_MS) return null
  const source = screenSource(obs)
  const block: HardBlock = {at: obs.since, source, text: obs.text || 'question'}
  return {...facts, question: block, settled: false, sources: {...facts.sources, question: source}}
}

/**
 * The process that showed the session in its pane is gone (a TUI killed while its thread waits
 * on it; the app-server daemon it shared still holds the session's file, docs/agents/): an approval
 * or question still open, with nothing written since the process was last seen, has nobody left
 * to answer it, so the session reads dead. A turn without an ask goes on in the server (it reads
 * from its files), and anything written after the process went means the thread moved on.
 */
function askLeftBehind(facts: SessionFacts, obs: ScreenObservation, gone: number): SessionFacts {
  if (facts.settled || (facts.approval === null && facts.question === null)) return facts
  if (facts.lastActivityAt !== null && facts.lastActivityAt > gone + STALE_SLACK_MS) return facts
  const source = screenSource(obs)
  const process = {alive: false, exited: 'crash' as const, heartbeatAt: null, pid: obs.pid, source, status: null}
  return {...facts, approval: null, process, question: null, sources: {...facts.sources, process: source}}
}

/**
 * A registry or hook that still says a dialog is open (a process registry's waiting flag; a
 * Notification hook, which no hook follows when the user answers) while the screen has since shown the
 * agent busy, or at a plain prompt across two sweeps, with no dialog on it: the dialog closed
 * and the files have not caught up. The screen corrects it; null when it does not apply.
 */
function registryDialogClosed(facts: SessionFacts, obs: ScreenObservation): SessionFacts | null {
  const kind = facts.approval !== null ? 'approval' : facts.question !== null ? 'question' : null
  if (kind === null || facts.error !== null) return null
  const block = facts[kind]!
  // A dialog the files or hooks opened and that nothing closes when the user answers it (a
  // registry lagging; hooks where no event fires on the answer, only the tool's end later).
  const from = facts.sources[kind]?.kind
  if (from !== 'registry' && from !== 'hook') return null
  const moved = obs.kind === 'busy' || (obs.kind === 'idle' && obs.confirmedAt !== null)
  if (!moved || obs.since <= block.at + STALE_SLACK_MS) return null
  const source = screenSource(obs)
  const cleared: SessionFacts = {...facts, [kind]: null, sources: {...facts.sources, [kind]: source}}
  if (obs.kind === 'idle') return {...cleared, settled: true, sources: {...cleared.sources, settled: source}}
  if (facts.process === null || !facts.process.alive) return cleared
  return {...cleared, process: {...facts.process, source, status: 'working'}, sources: {...cleared.sources, process: source}}
}
