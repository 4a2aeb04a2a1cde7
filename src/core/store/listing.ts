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
