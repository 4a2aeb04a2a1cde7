/**
 * classifyWorkState: facts + records + now -> one work state, with its reason, the rule that
 * decided it, the rule chain for `cast explain`, and when the answer could next change by time
 * alone (docs/contract.md §3.4). Pure: the same input and `now` give the same output.
 */
import {PRODUCING_STATUSES, TIME_LIMITS} from './types.js'
import type {
  ChildSummary,
  Classification,
  ClassifyInput,
  Declaration,
  FactSource,
  ProcessFacts,
  Reason,
  Rule,
  SessionFacts,
  SessionRecords,
  WorkState,
} from './types.js'

export type ChainEntry = Classification['chain'][number]

/** What one rule decided, when it decided. */
interface Decision {
  readonly state: WorkState
  readonly reason: Reason
  readonly note: string
  readonly nextCheckAt?: number
}

/** A rule either decides or says, in a short note, why it stepped aside. */
type Outcome = Decision | string

interface Context {
  readonly facts: SessionFacts
  readonly records: SessionRecords
  readonly children: ChildSummary
  readonly now: number
  /** The later of the last transcript activity and the last `cast send`. */
  readonly activityAt: number | null
  readonly live: boolean
  /** The declaration, if it was made in the current turn. */
  readonly declaration: Declaration | null
  /** A `cast send` newer than anything in the transcript: the agent has not picked it up yet. */
  readonly pendingSend: boolean
}

/** "Activity": the later of the last transcript activity and the last `cast send`. */
export function lastActivityAt(facts: SessionFacts, records: SessionRecords): number | null {
  return later(facts.lastActivityAt, records.lastSendAt)
}

/**
 * A `cast send` the transcript does not show yet. Until the agent picks it up, the settled turn
 * before it is not the last word: the session reads turn_pending (rule 8), so `send` then `wait`
 * never sees the stale answer.
 */
export function hasPendingSend(facts: SessionFacts, records: SessionRecords): boolean {
  if (records.lastSendAt === null) return false
  return facts.lastActivityAt === null || records.lastSendAt > facts.lastActivityAt
}

/** The process is running: alive in the process table and not reported exited. */
export function isProcessLive(proc: ProcessFacts | null): boolean {
  return proc !== null && proc.alive && proc.exited === null
}

/** A kill stands until a `cast send` after it. */
export function isKilled(records: SessionRecords): boolean {
  if (records.killedAt === null) return false
  return records.lastSendAt === null || records.lastSendAt <= records.killedAt
}

/** Declarations cover only the turn that made them. */
export function currentDeclaration(facts: SessionFacts, records: SessionRecords): Declaration | null {
  const {declaration} = records
  if (declaration === null || declaration.turnIndex !== facts.turnIndex) return null
  return declaration
}

/** A wake cast can see for itself: an armed trigger, open background work, a producing child. */
export function verifiableWake(facts: SessionFacts, records: SessionRecords, children: ChildSummary): string | null {
  const wakes: string[] = []
  if (records.triggers.recurring > 0) wakes.push(plural(records.triggers.recurring, 'recurring trigger'))
  if (records.triggers.oneShot > 0) wakes.push(plural(records.triggers.oneShot, 'one-shot trigger'))
  if (facts.backgroundWork > 0) wakes.push(plural(facts.backgroundWork, 'background task'))
  if (children.producing) wakes.push('a child producing')
  return wakes.length > 0 ? wakes.join(', ') : null
}

const RULES: readonly (readonly [Rule, (ctx: Context) => Outcome])[] = [
  [1, killedRule],
  [2, snoozeRule],
  [3, verdictRule],
  [4, hardBlockRule],
  [5, producingRule],
  [6, deadRule],
  [7, settledRule],
  [8, pendingRule],
]

export function classifyWorkState(input: ClassifyInput, now: number): Classification {
  const {children, facts, records} = input
  const ctx: Context = {
    activityAt: lastActivityAt(facts, records),
    children,
    declaration: currentDeclaration(facts, records),
    facts,
    live: isProcessLive(facts.process),
    now,
    pendingSend: hasPendingSend(facts, records),
    records,
  }

  const chain: ChainEntry[] = []
  for (const [rule, check] of RULES) {
    const outcome = check(ctx)
    if (typeof outcome === 'string') {
      chain.push({matched: false, note: outcome, rule})
      continue
    }

    chain.push({matched: true, note: outcome.note, rule})
    // A stall not yet due changes the answer by time alone when its window ends (rule 5).
    const due = rule >= 5 ? stallDueAt(ctx) : null
    const next = due !== null && due > now ? Math.min(due, outcome.nextCheckAt ?? due) : (outcome.nextCheckAt ?? null)
    return {chain, nextCheckAt: next, reason: outcome.reason, rule, state: outcome.state}
  }

  // Rule 8 always decides; this is only reached if the table above loses it.
  throw new Error('classifyWorkState: no rule decided')
}

function killedRule({records}: Context): Outcome {
  if (records.killedAt === null) return 'not killed'
  if (!isKilled(records)) return `killed ${at(records.killedAt)}, cleared by a send ${at(records.lastSendAt)}`
  return {note: `killed ${at(records.killedAt)}; only a new send clears it`, reason: 'killed', state: 'idle'}
}

function snoozeRule({activityAt, now, records}: Context): Outcome {
  const until = records.snoozedUntil
  if (until === null) return 'not snoozed'
  if (now < until) return {nextCheckAt: until, note: `snoozed until ${iso(until)}`, reason: 'snoozed', state: 'dormant'}
  if (activityAt !== null && activityAt > until) return `snooze ended ${at(until)}; activity since ${at(activityAt)}`
  // The user looked at it after it woke and filed it: that verdict is rule 3's to apply.
  if (records.verdict !== null && records.verdict.at >= until) return `snooze ended ${at(until)}; verdict given since`
  return {note: `snooze ended ${at(until)}; no activity since`, reason: 'snooze_expired', state: 'needs_input'}
}

function verdictRule({activityAt, records}: Context): Outcome {
  const {verdict} = records
  if (verdict === null) return 'no verdict'
  if (activityAt !== null && activityAt > verdict.at) {
    return `verdict ${verdict.verdict} ${at(verdict.at)} expired: activity ${at(activityAt)}`
  }

  return {note: `user marked ${verdict.verdict} ${at(verdict.at)}`, reason: 'user_verdict', state: verdict.verdict}
}

function hardBlockRule({facts, live}: Context): Outcome {
  if (facts.error) return {note: `API error ${at(facts.error.at)}: ${clip(facts.error.text)}`, reason: 'error', state: 'needs_input'}
  if (facts.question) {
    const note = `open question ${at(facts.question.at)}: ${clip(facts.question.text)}${overruled(facts, facts.question.source, live)}`
    return {note, reason: 'question', state: 'needs_input'}
  }

  if (facts.approval) {
    const note = `permission prompt ${at(facts.approval.at)}: ${clip(facts.approval.text)}${overruled(facts, facts.approval.source, live)}`
    return {note, reason: 'approval', state: 'needs_input'}
  }

  return 'no API error, question or permission prompt'
}

/**
 * An ask stands while the process reports it is producing: the agent's own state (a registry, a
 * hook, a state file) says working, and the transcript or screen that shows the ask wins. The
 * note says both, for `cast explain`.
 */
function overruled(facts: SessionFacts, ask: FactSource, live: boolean): string {
  const proc = facts.process
  if (!live || proc === null || proc.status === null || !PRODUCING_STATUSES.includes(proc.status)) return ''
  if (proc.source.kind === ask.kind && proc.source.ref === ask.ref) return ''
  return `; the ${proc.source.kind} (${proc.source.ref}) says ${proc.status}, the ${ask.kind} showing the ask wins`
}

/** When a live session whose background work all finished reads stalled (rule 5); null when none is pending. */
function stallDueAt({facts, live}: Context): number | null {
  const done = facts.backgroundDoneAt ?? null
  if (!live || done === null || facts.backgroundWork > 0) return null
  return done + TIME_LIMITS.STALL_AFTER_MS
}

function producingRule(ctx: Context): Outcome {
  const {facts, live, now} = ctx
  const proc = facts.process
  if (proc === null) return 'no process facts'
  const stallAt = stallDueAt(ctx)
  if (stallAt !== null && now >= stallAt) {
    return {
      note: `background work all finished ${at(facts.backgroundDoneAt ?? null)}; process ${proc.pid} has not resumed its turn since`,
      reason: 'stalled',
      state: 'needs_input',
    }
  }

  if (live && proc.status !== null && PRODUCING_STATUSES.includes(proc.status)) {
    return {note: `process ${proc.pid} alive, status ${proc.status}`, reason: 'producing', state: 'working'}
  }

  if (live && facts.queued > 0) {
    return {note: `${plural(facts.queued, 'queued message')} for live process ${proc.pid}`, reason: 'queued', state: 'working'}
  }

  if (live && proc.status === 'waiting') {
    return {
      note: `the ${proc.source.kind} says process ${proc.pid} waits, and names no ask`,
      reason: 'blocked_unclear',
      state: 'needs_input',
    }
  }

  if (proc.status === 'hibernated' && facts.queued === 0 && proc.exited !== 'crash') {
    return {note: `process ${proc.pid} hibernated, nothing queued`, reason: 'hibernated', state: 'dormant'}
  }

  if (!live) return `${processName(proc.pid, proc.source)} not running`
  return `process ${proc.pid} alive, status ${proc.status ?? 'none'}, nothing queued`
}

/**
 * A process in a sentence: "process 4242"; with no pid, "the agent's process" when a hook said it
 * (an end event carries none), else "no process (…)": none holds the session, its source says why.
 */
export function processName(pid: number, source: FactSource | null = null): string {
  if (pid > 0) return `process ${pid}`
  return source === null || source.kind === 'hook' ? "the agent's process" : `no process (${source.ref})`
}

function deadRule({declaration, facts, live}: Context): Outcome {
  const proc = facts.process
  if (proc === null) return 'no process facts'
  const name = processName(proc.pid, proc.source)
  if (live) return `${name} alive`
  if (facts.messages === 0) return `${name} gone, no messages`
  const how = proc.exited === null ? 'is gone' : proc.exited === 'crash' ? 'crashed' : 'exited normally'
  if (declaration?.status === 'done' && proc.exited !== 'crash') {
    return {
      note: `${name} ${how} after the agent declared done: ${clip(declaration.text)}`,
      reason: 'declared_done',
      state: 'done',
    }
  }

  // The agent said it exited (a session-end hook or event, docs/contract.md §3.4) after its turn
  // ended: nothing crashed, and the settled turn decides (rule 7).
  if (proc.exited === 'clean' && facts.settled) return `${name} exited cleanly after its turn ended`
  if (proc.pid <= 0 && proc.source.kind !== 'hook')
    return {note: `${name}: read as a crash with ${plural(facts.messages, 'message')}`, reason: 'dead', state: 'needs_input'}
  return {note: `${name} ${how} after ${plural(facts.messages, 'message')}`, reason: 'dead', state: 'needs_input'}
}

function settledRule(ctx: Context): Outcome {
  const {activityAt, children, declaration, facts, now, pendingSend, records} = ctx
  if (!facts.settled) return 'turn not settled'
  // No prompt yet, no turn to settle (a fresh TUI at its prompt): rule 8 reads it idle/empty.
  if (facts.messages === 0 && !pendingSend && declaration === null) return 'settled, but no messages yet'
  if (pendingSend) return `settled, but a send ${at(records.lastSendAt)} is not picked up yet`
  const stale =
    records.declaration !== null && declaration === null ? `; declaration from turn ${records.declaration.turnIndex} no longer applies` : ''
  const wake = verifiableWake(facts, records, children)

  if (declaration?.status === 'blocked') {
    if (declaration.text.trim() === '')
      return {note: 'settled, declared blocked with no text: it asks nothing', reason: 'blocked_unclear', state: 'needs_input'}
    return {note: `settled, declared blocked: ${clip(declaration.text)}`, reason: 'declared_blocked', state: 'needs_input'}
  }

  if (declaration?.status === 'dormant') {
    if (wake !== null) {
      return {
        note: `settled, declared dormant, wake verified (${wake}): ${clip(declaration.text)}`,
        reason: 'declared_dormant',
        state: 'dormant',
      }
    }

    const expiresAt = (later(declaration.at, activityAt) ?? declaration.at) + TIME_LIMITS.DORMANT_CLAIM_TTL_MS
    if (now < expiresAt) {
      return {
        nextCheckAt: expiresAt,
        note: `settled, declared dormant, no verifiable wake: trusted until ${iso(expiresAt)}`,
        reason: 'declared_dormant',
        state: 'dormant',
      }
    }

    return {
      note: `settled, declared dormant, no verifiable wake: trust ran out ${at(expiresAt)}`,
      reason: 'unverified_claim',
      state: 'needs_input',
    }
  }

  if (records.triggers.recurring > 0) {
    return {note: `settled, ${plural(records.triggers.recurring, 'recurring trigger')} armed${stale}`, reason: 'trigger', state: 'dormant'}
  }

  if (facts.backgroundWork > 0) {
    return {note: `settled, ${plural(facts.backgroundWork, 'background task')} open${stale}`, reason: 'background_work', state: 'dormant'}
  }

  if (children.producing) return {note: `settled, a child is still producing${stale}`, reason: 'child_producing', state: 'dormant'}

  if (declaration?.status === 'done') {
    if (records.triggers.oneShot > 0) {
      return {
        note: `settled, declared done, ${plural(records.triggers.oneShot, 'one-shot trigger')} armed`,
        reason: 'trigger',
        state: 'dormant',
      }
    }

    return {note: `settled, declared done: ${clip(declaration.text)}`, reason: 'declared_done', state: 'done'}
  }

  if (facts.deliveredToParent === true)
    return {note: `settled, its result went to its parent session${stale}`, reason: 'delivered', state: 'done'}
  if (records.delivered) return {note: `settled, judged delivered${stale}`, reason: 'delivered', state: 'done'}
  return {note: `settled, nothing else holds it${stale}`, reason: 'settled', state: 'needs_input'}
}

function pendingRule({activityAt, facts, live, now, pendingSend, records}: Context): Outcome {
  if (facts.messages === 0 && !pendingSend) return {note: 'no messages', reason: 'empty', state: 'idle'}
  const why = pendingSend ? `a send ${at(records.lastSendAt)} not picked up yet` : 'turn not settled'
  const proc = facts.process
  if (live && proc !== null && proc.status === null) {
    return {note: `${why}, process ${proc.pid} alive`, reason: 'turn_pending', state: 'working'}
  }

  const evidence = live && proc !== null ? `process ${proc.pid} reports ${proc.status ?? 'no status'}` : 'no live process'
  const since = activityAt ?? facts.createdAt
  if (since === null) return {note: `${why}, ${evidence}, no activity time`, reason: 'unresponsive', state: 'needs_input'}
  const deadline = since + TIME_LIMITS.TURN_PENDING_TTL_MS
  if (now < deadline) {
    return {nextCheckAt: deadline, note: `${why}, ${evidence}; pending until ${iso(deadline)}`, reason: 'turn_pending', state: 'working'}
  }

  return {note: `${why}, ${evidence}; nothing since ${iso(since)}`, reason: 'unresponsive', state: 'needs_input'}
}

function later(a: number | null, b: number | null): number | null {
  if (a === null) return b
  if (b === null) return a
  return Math.max(a, b)
}

function iso(ms: number): string {
  return new Date(ms).toISOString()
}

function at(ms: number | null): string {
  return ms === null ? 'at an unknown time' : `at ${iso(ms)}`
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}

function clip(text: string, max = 80): string {
  const line = text.split('\n', 1)[0]?.trim() ?? ''
  return `"${line.length > max ? `${line.slice(0, max - 1)}…` : line}"`
}
