/**
 * Lean queries for the big lists (issue 16 point 4): ids only, so `cast sessions --json --all`
 * and `cast feed` load full rows a chunk at a time (Store.loadSessions(ids)) and memory stays
 * flat as the store grows.
 */
import type {Store} from './store.js'

/** Every session id, in the order `Store.loadSessions()` returns the rows (rowid). */
export function sessionIdsInOrder(store: Store): string[] {
  return store.q('SELECT id FROM sessions ORDER BY rowid').pluck().all().map(String)
}

/**
 * Top-level sessions active since `since` (last activity, else first seen), newest first, ties in
 * `loadSessions()` order: the candidates of `cast feed`, in its order.
 */
export function* recentTopLevelIds(store: Store, since: number): Generator<string> {
  const stmt = store.q(
    `SELECT id FROM sessions WHERE parent_id IS NULL AND coalesce(last_activity_at, first_seen_at) >= ?
     ORDER BY coalesce(last_activity_at, first_seen_at) DESC, rowid`,
  )
  // All ids first (small strings), then the caller loads rows a chunk at a time: no statement
  // stays open while others run on the same connection.
  for (const id of stmt.pluck().all(since)) yield String(id)
}

/**
 * Which rows can be in the inbox at all (issue 16 point 2: read only the rows it prints): active
 * since `since`, or waiting on someone (views.ts outlivesRecency: a question bucket, an approval,
 * a question, an open decision card or a declaration while needs_input), pinned, or owned. Every
 * other row is out of the inbox whatever the filters (ownership.ts inInbox). The asks are read
 * from the facts by SQLite (`->`), not by parsing every row's facts in JS.
 */
const CANDIDATE = `(coalesce(last_activity_at, first_seen_at) >= @since OR bucket = 'questions'
  OR (state = 'needs_input' AND (
    facts -> '$.approval' != 'null' OR facts -> '$.question' != 'null'
    OR id IN (SELECT session_id FROM decisions WHERE answered_at IS NULL)
    OR id IN (SELECT session_id FROM records WHERE declaration IS NOT NULL)))
  OR id IN (SELECT session_id FROM records WHERE pinned) OR id IN (SELECT session_id FROM owners))`

export interface InboxCandidates {
  /** The rows that can be in the inbox, in `loadSessions()` order. */
  readonly ids: string[]
  /**
   * The others that `--all` would list (not folded, dismissed or hidden; nobody owns them), by
   * runner (null: no runner), for the "older sessions hidden" line.
   */
  readonly olderByRunner: Map<string | null, number>
}

export function inboxCandidates(store: Store, since: number): InboxCandidates {
  // Through the covering index sessions_inbox (migration 6): every column and expression read here
  // is in it, so the scan never reads the facts.
  const rows = store
    .q(`SELECT id, ${CANDIDATE}, coalesce(bucket, 'new'), runner FROM sessions INDEXED BY sessions_inbox ORDER BY rowid`)
    .raw(true)
    .all({since}) as [string, number, string, string | null][]
  const ids: string[] = []
  const olderByRunner = new Map<string | null, number>()
  for (const [id, candidate, bucket, runner] of rows) {
    if (candidate) ids.push(id)
    else if (bucket !== 'folded' && bucket !== 'dismissed' && bucket !== 'hidden')
      olderByRunner.set(runner, (olderByRunner.get(runner) ?? 0) + 1)
  }

  return {ids, olderByRunner}
}
