/**
 * Lean queries for the big lists (issue 16 point 4): ids only, so `cast sessions --json --all`
 * and `cast feed` load full rows a chunk at a time (Store.loadSessions(ids)) and memory stays
 * flat as the store grows.
 */
import type {Store} from './store.js'

/** Every session id, in the order `Store.loadSessions()` returns the rows (rowid). */
export function sessionIdsInOrder(store: Store): string[] {
  return (store.q('SELECT id FROM sessions ORDER BY rowid').pluck().all() as unknown[]).map(String)
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
  for (const id of stmt.pluck().all(since) as unknown[]) yield String(id)
}

/**
 * Which rows can be in the inbox at all (issue 16 point 2: read only the rows it prints): active
 * since `since`, or waiting on someone (needs_input, a question), pinned, or owned. Every other
 * row is out of the inbox whatever the filters (ownership.ts inInbox, views.ts outlivesRecency: an
 * approval, a question or an open decision card, a declaration).
 */
const CANDIDATE = `(coalesce(last_activity_at, first_seen_at) >= @since OR bucket = 'questions'
  OR (state = 'needs_input' AND (json_extract(facts, '$.approval') IS NOT NULL OR json_extract(facts, '$.question') IS NOT NULL
    OR id IN (SELECT session_id FROM decisions WHERE answered_at IS NULL)
    OR id IN (SELECT session_id FROM records WHERE declaration IS NOT NULL)))
  OR id IN (SELECT session_id FROM records WHERE pinned) OR id IN (SELECT session_id FROM owners))`

/** The ids of the rows that can be in the inbox, in `loadSessions()` order. */
export function inboxCandidateIds(store: Store, since: number): string[] {
  return (store.q(`SELECT id FROM sessions WHERE ${CANDIDATE} ORDER BY rowid`).pluck().all({since}) as unknown[]).map(String)
}

/**
 * The other rows, listed with `--all` (not folded, dismissed or hidden, nobody owns them): how
 * many each runner has (null: no runner), for the "older sessions hidden" line.
 */
export function olderByRunner(store: Store, since: number): {runner: string | null; n: number}[] {
  return store
    .q(
      `SELECT runner, count(*) AS n FROM sessions WHERE NOT ${CANDIDATE}
       AND coalesce(bucket, 'new') NOT IN ('folded', 'dismissed', 'hidden') GROUP BY runner`,
    )
    .all({since}) as {runner: string | null; n: number}[]
}
