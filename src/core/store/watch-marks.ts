/**
 * What a watcher polls to learn that a person's action changed who sees a session (own, disown,
 * label, a filing, undo): every triage action writes a `history` row, undo stamps `undone_at`.
 * Two cheap reads, no change to the schema.
 */
import type {Store} from './store.js'

export interface HistoryMark {
  readonly lastId: number
  readonly undone: number
}

export function historyMark(store: Store): HistoryMark {
  const r = store.q('SELECT COALESCE(MAX(id), 0) AS id, COUNT(undone_at) AS undone FROM history').get() as {id: number; undone: number}
  return {lastId: Number(r.id), undone: Number(r.undone)}
}

/** Sessions touched by history rows after `id`. */
export function historySessionsAfter(store: Store, id: number): string[] {
  return (store.q('SELECT DISTINCT session_id FROM history WHERE id > ?').all(id) as {session_id: string}[]).map((r) =>
    String(r.session_id),
  )
}
