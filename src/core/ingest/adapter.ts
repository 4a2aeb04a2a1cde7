/**
 * The contract between the ingest engine and an agent adapter (docs/contract.md §5).
 *
 * An adapter says where its agent keeps files and turns bytes into facts. The engine does all
 * the I/O: discovery, offsets, the process table, the spool, the store. Adapters never import
 * the store, and commands never import adapters directly (they go through the registry in
 * src/adapters/index.ts).
 */
import type {Agent, FactSource, HardBlock, ProcessStatus, SessionFacts} from '../model/types.js'

export interface AdapterEnv {
  /** The environment to honour (each agent module's `env`: its home folder's variable, XDG_DATA_HOME, …). */
  readonly env: Readonly<Record<string, string | undefined>>
  /** $HOME (already resolved from env, else os.homedir()). */
  readonly home: string
}

/** How the engine should read a file an adapter cares about. */
export type FileMatch =
  /** Append-only JSONL: read incrementally with the adapter's resumable parser. */
  | {readonly kind: 'jsonl'; readonly nativeId: string; readonly parentNativeId?: string | null; readonly role?: string}
  /** Small file rewritten whole (registries, indexes, JSON sessions): re-read on change. */
  | {readonly kind: 'whole'; readonly role: string; readonly nativeId?: string}
  /** A SQLite database owned by the agent: opened read-only, re-read on change. */
  | {readonly kind: 'sqlite'; readonly role: string; readonly nativeId?: string}

/**
 * A process that a file says runs a session. The engine checks it against the live process
 * table (pid alive and, when startedAt is known, the start time matches) and turns it into
 * ProcessFacts with `alive` set.
 */
export interface ProcessClaim {
  readonly pid: number
  /** Epoch ms the process started, when the file records it (guards against pid reuse). */
  readonly startedAt: number | null
  readonly status: ProcessStatus | null
  readonly heartbeatAt: number | null
  readonly source: FactSource
}

/**
 * What a source carries beyond SessionFacts, as the engine stores it (JSON). Each source types its
 * own: the adapters one discriminated union each (their `facts.ts`), the screen sweep
 * `ScreenExtra` (screen-overlay.ts), the process scan `ScanExtra` (process-scan.ts).
 */
export type ContributionExtra = Readonly<Record<string, unknown>>

/**
 * What one file knows about one session. JSON-serializable: the engine stores it so a session
 * can be recomposed when any of its files changes without re-reading the others. `X` is the type
 * of its `extra` where the writer knows it; a contribution read back from the store has the
 * untyped default, and each reader narrows it through its source's guard.
 */
export interface Contribution<X extends ContributionExtra = ContributionExtra> {
  readonly nativeId: string
  /** Facts this file knows. Undefined keys are left to other files. */
  readonly facts: Partial<SessionFacts>
  /** A process this file says runs the session (registry, lock file, open handle). */
  readonly processClaim?: ProcessClaim
  /**
   * Where the descriptor of a process holding this file open stands when that process shows this
   * session (byte offsets; `/proc/<pid>/fdinfo`'s `pos`). Absent: holding the file open ties the
   * process to the session (a transcript only its own process writes). `[]`: holding it ties
   * nothing (a database every process of the agent holds). See pane-tie.ts.
   */
  readonly heldAt?: readonly number[]
  /** When two contributions set the same fact, the higher priority wins (transcript 0, registry 10, hooks 20). */
  readonly priority?: number
  /**
   * What this source knows for the adapter's own compose step beyond SessionFacts (e.g. a
   * registry's waitingFor). Each adapter types its sources' facts as one discriminated union in
   * its own `facts.ts` and reads them back through it; the engine only stores them.
   */
  readonly extra?: X
}

/** A contribution whose process claim the engine has checked against the process table. */
export interface CheckedContribution<X extends ContributionExtra = ContributionExtra> extends Contribution<X> {
  /** Set when processClaim was present: the claim, checked. */
  readonly processAlive?: boolean
}

/** One JSONL line as the engine parsed it: a JSON object (any other value is a malformed line). */
export type JsonRecord = Record<string, unknown>

/**
 * Resumable parser for an append-only JSONL file. State must be small and JSON-serializable.
 * The engine reads and parses each line once (src/core/ingest/jsonl-line.ts): a blank line is
 * skipped, a line that is not a JSON object is counted as malformed and skipped, and the count
 * of malformed lines is the engine's alone (it sets `facts.parseErrors` on the file's first
 * contribution). The parser sees objects only.
 */
export interface JsonlParser<S = unknown> {
  /** Lines are JSON objects (the default). */
  readonly lines?: 'json'
  init(path: string, match: FileMatch & {kind: 'jsonl'}): S
  /**
   * Feed one parsed line that starts at byte `offset`. Returns false when the record is not one
   * the format has (e.g. no `type`): the engine counts it as malformed and moves on.
   */
  line(state: S, rec: JsonRecord, offset: number): boolean
  /** What the file knows so far, per session (a transcript may also describe subagents). */
  contributions(state: S, path: string, match: FileMatch & {kind: 'jsonl'}): Contribution[]
  /**
   * Whether a stored state (as JSON) can be resumed; false: it was written by a parser that kept
   * less (src/adapters/kit/holds.ts), so the file is read again from its start when it next grows.
   */
  resumes?(stored: string): boolean
}

/** Resumable parser for an append-only log of free-text lines (a plain-text log): each line's text, unparsed. */
export interface TextLineParser<S = unknown> {
  readonly lines: 'text'
  init(path: string, match: FileMatch & {kind: 'jsonl'}): S
  /** Feed one complete line (without its newline). Returns false when it is malformed (counted). */
  line(state: S, text: string, offset: number): boolean
  contributions(state: S, path: string, match: FileMatch & {kind: 'jsonl'}): Contribution[]
}

export type LineParser<S = unknown> = JsonlParser<S> | TextLineParser<S>

/** A read-only handle to an agent's SQLite database, opened by the engine. */
export interface ReadonlyDb {
  all(sql: string, ...params: unknown[]): Record<string, unknown>[]
  columns(table: string): string[]
}

/** One hook payload from the spool, as the engine hands it to the adapter that owns it. */
export interface HookEvent {
  readonly agent: Agent
  /** Receive time (epoch ms) stamped by the hook command. */
  readonly at: number
  readonly payload: Readonly<Record<string, unknown>>
}

export interface HookReducer<S = unknown> {
  /** The session a payload belongs to, or null to drop it. */
  sessionOf(event: HookEvent): string | null
  init(): S
  reduce(state: S, event: HookEvent): S
  contribution(state: S, nativeId: string): Contribution | null
}

export interface Adapter {
  readonly agent: Agent
  /** Human name for doctor/explain. */
  readonly label: string
  /** Directories to discover and watch (missing ones are fine). */
  roots(ctx: AdapterEnv): string[]
  /** Should the engine read this file, and how? Called for every file under a root. */
  match(path: string, ctx: AdapterEnv): FileMatch | null
  /** Directories under a root not worth walking (large blobs). */
  skipDir?(path: string): boolean
  readonly jsonl?: LineParser<unknown>
  parseWhole?(path: string, text: string, match: FileMatch & {kind: 'whole'}): Contribution[]
  readSqlite?(db: ReadonlyDb, path: string, match: FileMatch & {kind: 'sqlite'}): Contribution[]
  readonly hooks?: HookReducer<unknown>
  /**
   * The agent keeps no registry that outlives a crash (several do not): the engine finds
   * the process that runs each unsettled session (the tmux pane tied to it, else the one agent
   * process of this agent in the session's folder; names from the agent's screen patterns) and
   * records it as a claim with its start time; when none runs it, a claim that nothing does, so
   * a crash reads dead even when cast never saw the process (src/core/ingest/process-scan.ts).
   */
  readonly processScan?: boolean
  /**
   * The agent's interactive process creates its session as it starts, before any prompt, and
   * several of them can share one server that holds every session's file (a TUI and its
   * app-server daemon): a tmux pane is tied to the session its process created, by start time
   * (src/core/ingest/thread-birth.ts).
   */
  readonly sessionAtStart?: boolean
  /**
   * The agent writes nothing before its first reply: the session to list for a live process of
   * this agent whose stdout is not a terminal (a headless run) and that no session names yet, or
   * null for none (src/core/ingest/unwritten-runs.ts). Only with `processScan` (the scan lists the
   * processes).
   */
  readonly unwrittenRun?: (p: {readonly cwd: string; readonly startedAt: number}) => Partial<SessionFacts> | null
  /**
   * The agent's CLI as npm installs it: its binary, its package, and the version the project's
   * conformance suite last passed with (`cast doctor` warns when the installed one is newer).
   */
  readonly cli?: {readonly bin: string; readonly package: string; readonly testedVersion: string}
  /**
   * Process names (as in /proc/<pid>/comm or argv[0]'s basename) that hold their transcript open
   * while they run. The engine maps open file handles to pids once per sync and adds a
   * ProcessClaim for every jsonl file such a process holds open.
   */
  readonly openFileProcesses?: readonly string[]
  /**
   * A cheap test of a JSONL file's last bytes (raw) before any of them is parsed to find an open
   * ask (src/core/ingest/tail-read.ts): where in `tail` the first mark of an ask lies, -1 when
   * they cannot hold one (the lines from the one holding the mark are parsed). False: this
   * agent's files never end on an ask the file alone shows, and their tails are not read.
   * Without it every complete line of the tail is parsed.
   */
  readonly tailAskAt?: ((tail: Buffer) => number) | false
  /**
   * Combine every contribution for one session (transcript, registry, hooks, …) into facts.
   * Default: composeFacts from src/core/model/facts.ts.
   */
  compose?(nativeId: string, contributions: readonly CheckedContribution[]): SessionFacts
}

/**
 * What a sync that finds nothing changed needs of an adapter: where its files are and which of them
 * it reads, the processes that hold them, and its process-scan flags. No parser, no compose: each
 * agent's folder keeps these in a module of their own (src/adapters/<agent>/rules.ts), which a
 * no-op `cast sessions` loads instead of the whole adapter (src/lib/ingest/quick-sync.ts).
 */
export type AdapterRules = Pick<
  Adapter,
  'agent' | 'match' | 'openFileProcesses' | 'processScan' | 'roots' | 'sessionAtStart' | 'skipDir' | 'unwrittenRun'
>

export type {HardBlock}
