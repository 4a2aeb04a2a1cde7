/**
 * The domain vocabulary of cast (docs/contract.md §3). Plain data only: no handles, no clock, no I/O.
 * Times are epoch milliseconds.
 */

/**
 * cast's id of an agent (`agent` in JSON and in the database). The model takes any id: the list
 * of agents is the registry's (src/adapters/index.ts), which the model does not import.
 */
export type Agent = string

export const WORK_STATES = ['working', 'needs_input', 'done', 'dormant', 'idle'] as const
export type WorkState = (typeof WORK_STATES)[number]

/** Every reason classifyWorkState can give, grouped by the rule that gives it. */
export const REASONS = [
  'killed', // rule 1
  'snoozed', // rule 2
  'snooze_expired', // rule 2
  'user_verdict', // rule 3
  'error', // rule 4
  'question', // rule 4
  'approval', // rule 4
  'producing', // rule 5: a live process reports it is producing
  'queued', // rule 5: queued work a live process can deliver
  'stalled', // rule 5: its background work all finished, the live process never resumed the turn
  'blocked_unclear', // rule 5 (the agent reports it waits, naming no ask) and rule 7 (declared blocked with no text)
  'hibernated', // rule 5
  'dead', // rule 6
  'declared_done', // rule 6 exception and rule 7
  'declared_blocked', // rule 7
  'declared_dormant', // rule 7
  'unverified_claim', // rule 7 trust limit
  'trigger', // rule 7
  'background_work', // rule 7
  'child_producing', // rule 7
  'delivered', // rule 7
  'settled', // rule 7
  'turn_pending', // rule 8
  'unresponsive', // rule 8
  'empty', // rule 8
] as const
export type Reason = (typeof REASONS)[number]

/**
 * Every reason the transitions log can carry: the classifier's, and `park_released` (a park's
 * gate opened, model/parks.ts), which only the log has: the session keeps its classification.
 */
export const LOG_REASONS = [...REASONS, 'park_released'] as const
export type LogReason = (typeof LOG_REASONS)[number]

export type Rule = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8

/**
 * The events of the transitions log: a session seen for the first time, a change of state,
 * reason or bucket, and a session filed away as killed or dismissed (model/reconcile.ts).
 */
export const TRANSITION_EVENTS = ['new', 'transition', 'gone'] as const
export type TransitionEvent = (typeof TRANSITION_EVENTS)[number]

export const PROCESS_STATUSES = [
  'working',
  'thinking',
  'compacting',
  'starting',
  'resuming',
  'connected',
  'hibernated',
  'idle',
  'waiting',
] as const
export type ProcessStatus = (typeof PROCESS_STATUSES)[number]

/** Statuses that mean the process is producing right now (rule 5). */
export const PRODUCING_STATUSES: readonly ProcessStatus[] = ['working', 'thinking', 'compacting', 'starting', 'resuming', 'connected']

/** Where a fact came from, so `cast explain` can show it. */
export interface FactSource {
  /** 'transcript' | 'registry' | 'hook' | 'screen' | 'sqlite' | 'process' | 'index' | … */
  readonly kind: string
  /** File path, hook event name, or other locator. */
  readonly ref: string
  /** Byte offset of the line in the file, when the fact came from one line. */
  readonly offset?: number
}

export interface HardBlock {
  readonly text: string
  /** When it opened. */
  readonly at: number
  readonly source: FactSource
  /**
   * A question's options, when its agent's files list them and one of them answers it (one
   * question, single choice): agent text, shown as text only.
   */
  readonly choices?: readonly QuestionChoice[]
  /**
   * Every question of the call, when picking one option does not answer it (several questions,
   * or a multiple choice): agent text, shown as text only; answered in the agent's terminal.
   */
  readonly questions?: readonly AskedQuestion[]
}

export interface AskedQuestion {
  readonly question: string
  /** The short chip the agent's dialog shows for it (the ask tool's `header`), if any. */
  readonly header: string | null
  /** Several options may be ticked. */
  readonly multiSelect: boolean
  readonly options: readonly QuestionChoice[]
}

export interface QuestionChoice {
  readonly label: string
  readonly description: string | null
}

export interface ProcessFacts {
  readonly pid: number
  /** Checked against the live process table (pid alive and start time matches). */
  readonly alive: boolean
  /** Raw status the agent reports (registry, hook, screen), if any. */
  readonly status: ProcessStatus | null
  readonly heartbeatAt: number | null
  /** How it exited, when it did. */
  readonly exited: null | 'clean' | 'crash'
  readonly source: FactSource
}

/**
 * What adapters observed about one session. Every adapter produces this same shape, so the
 * classifier never needs to know which agent it is looking at.
 */
export interface SessionFacts {
  readonly cwd: string | null
  readonly title: string | null
  readonly model: string | null
  readonly createdAt: number | null
  readonly lastActivityAt: number | null
  /** Last time the agent itself wrote output (assistant text, tool call). For the quiet band. */
  readonly lastOutputAt: number | null
  /** User prompts plus distinct assistant messages (not lines). */
  readonly messages: number
  /** Number of turns started (user prompts that began a turn). */
  readonly turnIndex: number
  /** When the current turn started (the latest prompt), if known. */
  readonly turnStartedAt: number | null
  /** The current turn ended (or was interrupted). */
  readonly settled: boolean
  readonly question: HardBlock | null
  /** Pending permission prompt; text is the tool name. */
  readonly approval: HardBlock | null
  /** Unresolved API error banner. */
  readonly error: HardBlock | null
  readonly process: ProcessFacts | null
  /** Messages queued for the agent that it has not picked up. */
  readonly queued: number
  /** Open background work (background shells, monitors). */
  readonly backgroundWork: number
  /**
   * When the last of the background work the session launched (background subagents, background
   * shells) reported finished, while its turn had ended and nothing of the agent's followed the
   * report: the result waits for a turn that has not started. Null or absent otherwise (where the
   * adapter reads it: the task notifications an agent writes).
   */
  readonly backgroundDoneAt?: number | null
  /** Native id of the parent session, for subagents and forks. */
  readonly parentNativeId: string | null
  /** The last assistant message text, for a settle classifier. */
  readonly lastAssistantText: string | null
  /** The user's prompt that started the current turn, for a settle classifier (where the adapter reads it). */
  readonly lastPromptText?: string | null
  /** Tool names used in the current turn, in first-use order, for a settle classifier (where the adapter reads them). */
  readonly turnTools?: readonly string[]
  /**
   * The session's result went to its parent session, not to a person: a subagent its agent marks
   * finished (its subagent metadata says so). Settled, it reads done.
   */
  readonly deliveredToParent?: boolean
  /** Where each fact came from, keyed by fact name. */
  readonly sources: Readonly<Record<string, FactSource>>
  /** Lines that could not be parsed, skipped and counted. */
  readonly parseErrors: number
  /** What the session holds, where its adapter reads it (src/core/model/holds.ts). */
  readonly holds?: SessionHolds
}

/** Tokens in one of four kinds. `input` is the uncached input only (docs/contract.md, "What a session holds"). */
export interface TokenUsage {
  readonly input: number
  readonly output: number
  readonly cacheRead: number
  readonly cacheWrite: number
}

export interface RunningTool {
  readonly name: string
  /** When the call was made (epoch ms), when the line had a time. */
  readonly since: number | null
}

/** What one session's own files say it holds (src/core/model/holds.ts). */
export interface SessionHolds {
  /** Summed usage of the lines read as valid; null when the agent records none. */
  readonly usage: TokenUsage | null
  /** Lines whose usage was missing, negative, not an integer or absurd: counted, never summed. */
  readonly unknownUsage: number
  readonly models: readonly string[]
  /** Paths the session's tools wrote, with how many writes each, in first-write order. */
  readonly changed: readonly {readonly path: string; readonly count: number}[]
  /** Distinct paths past the cap, counted only. */
  readonly changedMore: number
  /** Open tool calls: a call with no result yet. */
  readonly running: readonly RunningTool[]
  /** Background work the agent records (shells, monitors, background agents), by id or name. */
  readonly background: readonly string[]
  /** The agent records a compaction in progress. */
  readonly compacting: boolean
  /** Read from part of the file only (the file was read before cast counted holds). */
  readonly partial: boolean
}

export const EMPTY_FACTS: SessionFacts = {
  approval: null,
  backgroundWork: 0,
  createdAt: null,
  cwd: null,
  error: null,
  lastActivityAt: null,
  lastAssistantText: null,
  lastOutputAt: null,
  messages: 0,
  model: null,
  parentNativeId: null,
  parseErrors: 0,
  process: null,
  question: null,
  queued: 0,
  settled: false,
  sources: {},
  title: null,
  turnIndex: 0,
  turnStartedAt: null,
}

export const DECLARED_STATUSES = ['working', 'blocked', 'done', 'dormant'] as const
export type DeclaredStatus = (typeof DECLARED_STATUSES)[number]

/** `cast state`: what the agent declared about itself, and in which turn. */
export interface Declaration {
  readonly status: DeclaredStatus
  readonly text: string
  readonly at: number
  readonly turnIndex: number
  /** The session's message count when it was declared, so a stale line looks stale. */
  readonly messages?: number
}

export const VERDICTS = ['done', 'dormant', 'needs_input'] as const
export type Verdict = (typeof VERDICTS)[number]

export const FILINGS = ['stashed', 'hidden', 'dismissed', 'snoozed', 'killed'] as const
export type Filing = (typeof FILINGS)[number]

/** cast's own records about a session (docs/contract.md §3.3), as the classifier and placement need them. */
export interface SessionRecords {
  readonly declaration: Declaration | null
  readonly verdict: {readonly verdict: Verdict; readonly at: number} | null
  readonly filing: Filing | null
  /** When the filing was made (stash, dismiss, snooze, kill). */
  readonly filedAt: number | null
  readonly snoozedUntil: number | null
  readonly killedAt: number | null
  /** The last `cast send` into the session. A send after a kill clears the kill. */
  readonly lastSendAt: number | null
  readonly pinned: boolean
  /** Deferred until the next activity after this time. */
  readonly deferredAt: number | null
  readonly owners: readonly string[]
  /** Armed scheduled messages. */
  readonly triggers: {readonly recurring: number; readonly oneShot: number}
  /** An open `cast decide` card. */
  readonly openDecision: boolean
  /**
   * When the open decision card was posted. Optional: placement uses it so a stash made while a
   * card was already open stays stashed; unknown means the card counts as new.
   */
  readonly openDecisionAt?: number | null
  /** A settle classifier judged the current turn delivered. */
  readonly delivered: boolean
  /** Marked unread by the user. */
  readonly unread: boolean
}

export const EMPTY_RECORDS: SessionRecords = {
  declaration: null,
  deferredAt: null,
  delivered: false,
  filedAt: null,
  filing: null,
  killedAt: null,
  lastSendAt: null,
  openDecision: false,
  openDecisionAt: null,
  owners: [],
  pinned: false,
  snoozedUntil: null,
  triggers: {oneShot: 0, recurring: 0},
  unread: false,
  verdict: null,
}

/** What the classifier needs about a session's subagent children. */
export interface ChildSummary {
  readonly producing: boolean
  /** A child has an open question or permission prompt. */
  readonly asking: boolean
  /**
   * When the oldest open child ask opened. Optional: placement uses it so a stash or a verdict
   * made after the ask is not undone by it; unknown means the ask counts as new.
   */
  readonly askingSince?: number | null
}

export interface ClassifyInput {
  readonly facts: SessionFacts
  readonly records: SessionRecords
  readonly children: ChildSummary
}

export interface Classification {
  readonly state: WorkState
  readonly reason: Reason
  readonly rule: Rule
  /** Earliest future time at which the answer could change with no new input; null if none. */
  readonly nextCheckAt: number | null
  /** Every rule looked at, in order, with why it did or did not decide. For `cast explain`. */
  readonly chain: readonly {readonly rule: Rule; readonly matched: boolean; readonly note: string}[]
}

export const BUCKETS = [
  'dismissed',
  'stashed',
  'snoozed',
  'killed',
  'questions',
  'pinned',
  'new',
  'needs_input',
  'done',
  'working',
  'dormant',
  'idle',
] as const
export type Bucket = (typeof BUCKETS)[number] | 'folded' | 'hidden'

/**
 * The heading of each bucket's section in `cast sessions` and `cast inbox`. Every bucket has one,
 * so a new bucket does not compile until it is named (folded rows never head a section).
 */
export const SECTION_TITLES: Readonly<Record<Bucket, string>> = {
  dismissed: 'DISMISSED',
  dormant: 'DORMANT',
  done: 'DONE',
  folded: 'FOLDED',
  hidden: 'STASHED (HIDDEN)',
  idle: 'IDLE',
  killed: 'KILLED',
  needs_input: 'NEEDS INPUT',
  new: 'NEW',
  pinned: 'PINNED',
  questions: 'QUESTIONS',
  snoozed: 'SNOOZED',
  stashed: 'STASHED',
  working: 'WORKING',
}

/** Display order of the sections in `cast sessions`. Collapsed buckets come last. */
export const SECTION_ORDER: readonly Bucket[] = [
  'questions',
  'pinned',
  'new',
  'needs_input',
  'done',
  'working',
  'dormant',
  'idle',
  'snoozed',
  'stashed',
  'killed',
  'dismissed',
  'hidden',
]

export const TIME_LIMITS = {
  /** A declared dormant without a verifiable wake is trusted this long (rule 7). */
  DORMANT_CLAIM_TTL_MS: 2 * 60 * 60 * 1000,
  /** An unsettled turn with no process evidence reads working this long (rule 8). */
  TURN_PENDING_TTL_MS: 15 * 60 * 1000,
  /**
   * A live process whose background work all finished and that has not resumed its turn this long
   * after the last finish reads stalled (rule 5). A slow machine resumes later: until then it reads
   * as before, and the agent's first line after the finish ends the stall whatever the time.
   */
  STALL_AFTER_MS: 60 * 1000,
  /** A working session silent this long is quiet (§3.5). */
  QUIET_AFTER_MS: 10 * 60 * 1000,
  /** Default inbox recency window for unowned sessions (§3.7). */
  RECENCY_WINDOW_MS: 7 * 24 * 60 * 60 * 1000,
} as const
