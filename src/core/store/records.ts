/**
 * The records table: cast's own records about a session (docs/contract.md §3.3) as triage verbs change
 * them and undo restores them.
 */
import type {StoredRecords} from '../model/session-shape.js'
import type {RecordsPatch} from '../model/triage.js'
import type {Declaration, Filing, Verdict} from '../model/types.js'
import {num, parseJson, type Row, str} from './rows.js'
import type {Conn} from './conn.js'

export type {RecordsPatch} from '../model/triage.js'

const RECORD_COLUMNS: Record<keyof RecordsPatch, string> = {
  declaration: 'declaration',
  deferredAt: 'deferred_at',
  deliveredTurn: 'delivered_turn',
  filedAt: 'filed_at',
  filing: 'filing',
  killedAt: 'killed_at',
  lastSendAt: 'last_send_at',
  pinned: 'pinned',
  renamed: 'renamed',
  snoozedUntil: 'snoozed_until',
  unread: 'unread',
  verdict: 'verdict',
  verdictAt: 'verdict_at',
}

export function getRecordsRow(store: Conn, sessionId: string): RecordsPatch {
  const r = store.q('SELECT * FROM records WHERE session_id = ?').get(sessionId) as Row | undefined
  return r ? recordsFromRow(r) : {}
}

/** A records row's columns, typed (what loadSessions hands the model, and what undo saves). */
export function recordsFromRow(r: Row): StoredRecords & {readonly renamed: string | null} {
  return {
    declaration: parseJson<Declaration | null>(r.declaration, null),
    deferredAt: num(r.deferred_at),
    deliveredTurn: num(r.delivered_turn),
    filedAt: num(r.filed_at),
    filing: str(r.filing) as Filing | null,
    killedAt: num(r.killed_at),
    lastSendAt: num(r.last_send_at),
    pinned: Boolean(r.pinned),
    renamed: str(r.renamed),
    snoozedUntil: num(r.snoozed_until),
    unread: Boolean(r.unread),
    verdict: str(r.verdict) as Verdict | null,
    verdictAt: num(r.verdict_at),
  }
}

/** Change a session's records (creating the row). Call inside tx() with reconcile after. */
export function patchRecords(store: Conn, sessionId: string, patch: RecordsPatch): void {
  store.q('INSERT INTO records (session_id) VALUES (?) ON CONFLICT (session_id) DO NOTHING').run(sessionId)
  const keys = Object.keys(patch) as (keyof RecordsPatch)[]
  if (keys.length === 0) return
  const sets = keys.map((k) => `${RECORD_COLUMNS[k]} = ?`).join(', ')
  const values = keys.map((k) => {
    const v = patch[k]
    if (k === 'declaration') return v === null || v === undefined ? null : JSON.stringify(v)
    if (typeof v === 'boolean') return v ? 1 : 0
    return v ?? null
  })
  store.db.prepare(`UPDATE records SET ${sets} WHERE session_id = ?`).run(...values, sessionId)
}
