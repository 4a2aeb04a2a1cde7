/**
 * Queries for the ingest engine's recent-first cold start: which sessions
 * carry cast's own records (owned, pinned, snoozed, declared, filed, an open decision card, an
 * armed schedule), so their files are read before the answer however old they are.
 */
import type {Store} from './store.js'

/** `${agent}\0${nativeId}` of every session that carries one of cast's own records. */
export function sessionsWithRecords(store: Store): Set<string> {
  const rows = store
    .q(
      `SELECT agent, native_id FROM sessions WHERE id IN (
         SELECT session_id FROM records
         UNION SELECT session_id FROM owners
         UNION SELECT session_id FROM decisions WHERE answered_at IS NULL
         UNION SELECT session_id FROM schedules WHERE status IN ('armed', 'delivering'))`,
    )
    .all() as {agent: string; native_id: string}[]
  return new Set(rows.map((r) => `${r.agent}\0${r.native_id}`))
}
