/**
 * What the server and the page share: the JSON shapes `cast sessions --json` and `cast web`'s API
 * send (docs/contract.md §6.1, README "JSON shapes"), and the sanitizer every reader of agent text
 * applies. Both builds compile this one file: the CLI's (tsconfig.build.json) and the page's
 * (src/web/tsconfig.json, whose `./wire.js` is this file; the build copies it beside the page's
 * modules in dist/web). A leaf: it imports only types of the model, never a value, and nothing
 * of Node or of the browser. src/lib/views/views.ts builds the session shapes, src/lib/web/data.ts
 * the page's listing and detail (test/web/wire-types.test.ts holds them to these shapes).
 */
import type {Counts} from './tally.js'
import type {Phase} from './holds.js'
import type {
  Agent,
  Bucket,
  DeclaredStatus,
  FactSource,
  LogReason,
  Reason,
  Rule,
  SessionRecords,
  TransitionEvent,
  WorkState,
} from './types.js'
import type {VerbJson} from './verbs.js'

export type {Bucket, Counts, TransitionEvent, VerbJson, WorkState}

// ---- The version of the JSON contract

/**
 * The version of every `--json` envelope and every `-w --json` line: each carries `"schema": N`.
 * It goes up when a field is renamed, removed or changes its type; a field added leaves it as it
 * is. src/core/model/wire-schema.ts holds the shapes as zod schemas, docs/schema/ their JSON
 * Schemas (`npm run schema`).
 */
export const SCHEMA_VERSION = 1
export type SchemaVersion = typeof SCHEMA_VERSION

// ---- The sanitizer (src/core/model/sanitize.ts re-exports it for the CLI; src/web/dom.ts wraps it)

// C0 controls and DEL, C1 controls, and the bidi embedding/override/isolate characters.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001F\u007F\u0080-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g

function show(c: string, keep: string): string {
  if (keep.includes(c)) return c
  const code = c.codePointAt(0) ?? 0
  if (code < 0x20) return '^' + String.fromCodePoint(code + 0x40)
  if (code === 0x7f) return '^?'
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`
}

/**
 * Every control character made visible in caret notation (`^[` for ESC, `^?` for DEL), C1 and
 * bidi controls as `<U+XXXX>`; newlines and tabs kept (multi-line text).
 */
export function visible(s: string): string {
  return s.replace(CONTROL, (c) => show(c, '\n\t'))
}

/** One line for a row: newlines and tabs become spaces, CR `^M`, every other control is made visible. */
export function oneLine(s: string): string {
  return s.replace(/[\r\n\t]+/g, (m) => (m === '\r' ? '^M' : ' ')).replace(CONTROL, (c) => show(c, ''))
}

/** True when the string holds a character human output would have to make visible. */
export function hasControl(s: string): boolean {
  CONTROL.lastIndex = 0
  return CONTROL.test(s)
}

// ---- The event stream of `cast web` (src/lib/web/events.ts writes it, src/web/stream.ts reads it)

/**
 * The names of the Server-Sent Events of /api/events: the listing as the stream starts
 * (`snapshot`), a transition of the log as it is written (`transition`, a watch line), a new
 * listing after a change (`listing`).
 */
export const STREAM_EVENTS = ['snapshot', 'transition', 'listing'] as const
export type StreamEvent = (typeof STREAM_EVENTS)[number]

/**
 * What a line of `cast sessions -w` says happened: an event of the transitions log, a session
 * entering or leaving the watched view, or a `--snapshot` line (the session as it is now).
 */
export type WatchEvent = TransitionEvent | 'enter' | 'leave' | 'snapshot'

// ---- The session object (docs/contract.md §6.1)

/** What the session is asking, when it asks: the one field a script reads to know what to answer. */
export interface AskJson {
  kind: 'approval' | 'question' | 'error' | 'decision'
  text: string
  /** The tool a permission prompt is for (approval only). */
  tool: string | null
}

export interface DecisionJson {
  id: string
  session_id: string
  question: string
  options: {n: number; label: string; effect: string}[]
  recommend: number | null
  why: string | null
  asked_at: string
  asked_by: string
  answer: number | null
  answer_label: string | null
  answer_note: string | null
  answered_at: string | null
  answered_by: string | null
  auto: boolean
}

export interface SessionJson {
  id: string
  short_id: string
  agent: Agent
  native_id: string
  title: string | null
  cwd: string | null
  model: string | null
  state: WorkState
  reason: Reason
  rule: Rule
  bucket: Bucket
  messages: number
  created_at: string | null
  last_activity_at: string | null
  waiting_since: string | null
  live: boolean
  pid: number | null
  background_work: number
  quiet: boolean
  state_line: {text: string; status: DeclaredStatus; at: string; messages_since: number} | null
  owners: string[]
  runner: string | null
  device: string | null
  labels: string[]
  pinned: boolean
  filing: string | null
  snoozed_until: string | null
  parent_id: string | null
  children: string[]
  decision: DecisionJson | null
  ask: AskJson | null
  pane: string | null
  /** Tokens over the session and its subagent tree (src/lib/views/holds-view.ts); null when no file records usage. */
  usage: {input: number; output: number; cache_read: number; cache_write: number; total: number} | null
  /** Distinct paths the tree's tools wrote. */
  changed_files: number
  /** A park gated on another session (`cast stash --until-ready`), else null. */
  park: {until: string; until_short_id: string; note: string | null; since: string} | null
}

/** The listing of `cast sessions --json`. */
export interface ListingJson {
  schema: SchemaVersion
  me: string
  generated_at: string
  counts: Counts
  /** Sessions of my inbox left out by the recency window only (`--all` lists them); 0 with --all. */
  older_hidden: number
  /**
   * Present (true) only while older files are still being read in the background (a recent-first
   * answer, src/lib/ingest/ingest.ts): the listing may lack sessions those files hold.
   */
  partial?: true
  /** With partial: how many files this answer left unread, or null when another pass is reading them. */
  unread_files?: number | null
  sessions: SessionJson[]
  /** Present (true) when CAST_HOME is read-only: the stored inbox, not synced (docs/contract.md §6.1). */
  stale?: true
}

/** A line of `cast sessions -w --json`, and the data of the stream's `transition` event. */
export interface WatchLineJson {
  schema: SchemaVersion
  event: WatchEvent
  seq: number
  ts: string
  id: string | null
  session_id: string | null
  short_id: string | null
  agent: Agent | null
  title: string | null
  cwd: string | null
  from: WorkState | null
  to: WorkState | null
  reason: LogReason | null
  bucket: Bucket | null
  is_pinned: boolean
  is_live: boolean
  label: string | null
  labels: string[]
  owners: string[]
  ask: AskJson | null
  pane: string | null
}

/**
 * A watch line of a transition of the log (`new`, `transition`, `gone`): what the library's
 * `watch` yields. A session id, a state and a reason are always there.
 */
export interface TransitionLineJson extends WatchLineJson {
  event: TransitionEvent
  id: string
  to: WorkState
  reason: LogReason
  bucket: Bucket
}

// ---- `cast explain --json` (src/commands/explain.ts; the library's src/lib/client/explain.ts)

/** One fact and where it came from (a file and byte offset, a hook event, a process; `derived` for a default). */
export interface ExplainFact {
  fact: string
  value: unknown
  source: FactSource | null
}

/** Token counts (src/lib/views/holds-view.ts usageJson). */
export interface UsageJson {
  input: number
  output: number
  cache_read: number
  cache_write: number
  total: number
}

/** What a session holds (src/lib/views/holds-view.ts holdsJson): phase, tokens over its tree, files, tools, subagents. */
export interface HoldsJson {
  phase: Phase
  usage: UsageJson | null
  /** The session's own usage, without its subagents. */
  own_usage: UsageJson | null
  unknown_usage_lines: number
  /** Sessions in the tree without any usage record (an agent that writes none). */
  sessions_without_usage: number
  partial: boolean
  models: string[]
  changed_files: {path: string; writes: number}[]
  changed_files_more: number
  running_tools: {name: string; since: string | null}[]
  background: string[]
  subagents: {id: string; short_id: string; title: string | null; state: WorkState; phase: Phase}[]
}

/** Rule 7's rest verdict (src/lib/ingest/classifier.ts restOf): which of declaration / classifier / fallback decided it. */
export interface RestJson {
  decided_by: 'declaration' | 'classifier' | 'structure' | 'fallback'
  note: string
  classifier: {
    configured: boolean
    verdict: string | null
    why: string | null
    error: string | null
    at: string | null
    ms: number | null
  } | null
  nudged: boolean
}

/** `cast explain --json`: every fact with its source, the rule chain, the answer and the files read. */
export interface ExplainJson {
  schema: SchemaVersion
  bucket: Bucket
  rest: RestJson | null
  chain: {matched: boolean; note: string; rule: Rule}[]
  facts: ExplainFact[]
  files: {kind: string; offset: number; parse_errors: number; path: string; size: number}[]
  next_check_at: string | null
  reason: Reason
  /** cast's own records about the session, as the classifier reads them (epoch ms). */
  records: SessionRecords
  rule: Rule
  session: SessionJson
  state: WorkState
  holds: HoldsJson
  /** Its park: holding, or the last one that ended (with how). */
  park: {until: string; note: string | null; made_at: string; ended_at: string | null; ended: string | null} | null
  /** Present (true) when CAST_HOME is read-only: the stored facts, not synced. */
  stale?: true
}

// ---- Verb outcomes and refusals (src/lib/verbs)

/** What a triage verb (pin, stash, snooze, defer, dismiss, …) answers under --json: the undo action and the sessions as they are now. */
export interface VerbOutcomeJson {
  schema: SchemaVersion
  /** The undo history action, or null when nothing changed. */
  action: number | null
  sessions: SessionJson[]
  verb: string
}

/** The one error envelope of every `--json` command (src/lib/cli/errors.ts errorEnvelope): a refusal or a failure. */
export interface RefusalJson {
  schema: SchemaVersion
  error: {
    code: 'usage' | 'not_found' | 'ambiguous' | 'refused' | 'timeout' | 'failure'
    exit_code: number
    message: string
    suggestions: string[]
  }
}

// ---- The page's API (src/lib/web/server.ts)

/** The page's listing: `cast sessions --json` (`--team --json` for the team's view) with what the page draws from. */
export interface PageListingJson extends ListingJson {
  tally: string
  verbs: VerbJson[]
  /** The transitions log's seq the listing was built at (the stream resumes after it). */
  seq: number
  home: string
  /** This machine's name (what its own sessions' `device` says): a card on another machine names it. */
  device: string
  /** `cast web --team`: every session of the team, as `cast sessions --team`. */
  team: boolean
  /** Teammates' sessions I may not act on, by id, and why ("read-only: owned by X on host-y"). */
  read_only: Record<string, string>
  /** A line the page shows above the tally: why the inbox reads as it does (a kept demo whose stand-in agents ended). */
  notice?: string
  /** The first answer in the page holds only the head of the open sections (the stream brings the rest)... */
  head?: true
  /** ...and how many cards each section has. */
  sections?: Record<string, number>
}

/** An option of an agent's question. */
export interface ChoiceJson {
  label: string
  description: string | null
}

/** The answer view's session (/api/session/ID): its open ask and the agent's last message. */
export interface DetailJson {
  session: SessionJson
  /** The agent's last message, when this machine's files hold it. */
  last_assistant_text: string | null
  approval: {text: string; at: string} | null
  question: {
    text: string
    at: string
    choices: ChoiceJson[] | null
    /** Several questions or a multiple choice: every question and its options. */
    questions: {question: string; header: string | null; multiSelect: boolean; options: ChoiceJson[]}[] | null
  } | null
  error: {text: string; at: string} | null
  /** The permission dialog as the agent's screen shows it now (the command it asks to run), when it runs in tmux. */
  screen_dialog: string | null
}

/** A refusal or failure of the API: the CLI's `--json` error (src/lib/base/cast-error.ts). */
export interface ErrorJson {
  code: string
  exit_code: number
  message: string
  suggestions: string[]
}
