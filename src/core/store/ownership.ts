/**
 * The owners table (docs/contract.md §3.7): who a session is assigned to. The rule that decides inboxes is
 * pure (src/core/model/ownership.ts); this module only reads and writes the set.
 */
import type {Store} from './store.js'

export interface OwnerRow {
  readonly who: string
  readonly addedAt: number
  readonly addedBy: string
}

type Row = Record<string, unknown>

export function ownersOf(store: Store, sessionId: string): OwnerRow[] {
  return (store.q('SELECT who, added_at, added_by FROM owners WHERE session_id = ? ORDER BY added_at, who').all(sessionId) as Row[]).map(
    (r) => ({addedAt: Number(r.added_at), addedBy: String(r.added_by), who: String(r.who)}),
  )
}

/** Add an owner; false when they already own it (compared without case). */
export function addOwner(store: Store, sessionId: string, who: string, by: string, at: number): boolean {
  const present = store.q('SELECT 1 FROM owners WHERE session_id = ? AND lower(trim(who)) = lower(trim(?))').get(sessionId, who)
  if (present) return false
  store.q('INSERT INTO owners (session_id, who, added_at, added_by) VALUES (?, ?, ?, ?)').run(sessionId, who, at, by)
  return true
}

/** Remove an owner (compared without case); false when they did not own it. */
export function removeOwner(store: Store, sessionId: string, who: string): boolean {
  return store.q('DELETE FROM owners WHERE session_id = ? AND lower(trim(who)) = lower(trim(?))').run(sessionId, who).changes > 0
}

/** Put the owner set back exactly as it was (undo). */
export function replaceOwners(store: Store, sessionId: string, rows: readonly OwnerRow[]): void {
  store.q('DELETE FROM owners WHERE session_id = ?').run(sessionId)
  for (const r of rows) {
    store.q('INSERT INTO owners (session_id, who, added_at, added_by) VALUES (?, ?, ?, ?)').run(sessionId, r.who, r.addedAt, r.addedBy)
  }
}
