/**
 * The JSON shapes scripts read (docs/contract.md §6.1, README "JSON shapes"): a session object, its ask,
 * its decision card. Types only; src/lib/views/views.ts builds them.
 */
import type {Bucket, WorkState} from '../../core/model/types.js'

export interface SessionJson {
  id: string
  short_id: string
  agent: string
  native_id: string
  title: string | null
  cwd: string | null
  model: string | null
  state: WorkState
  reason: string
  rule: number
  bucket: Bucket
  messages: number
  created_at: string | null
  last_activity_at: string | null
  waiting_since: string | null
  live: boolean
  pid: number | null
  background_work: number
  quiet: boolean
  state_line: {text: string; status: string; at: string; messages_since: number} | null
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
