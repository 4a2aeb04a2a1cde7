/**
 * The settle classifier's verdicts: one row per session and turn, written once by the
 * runner in src/core/ingest/classifier.ts. A failure or a timeout is a row too (verdict null,
 * error set): the turn is not judged again, and `cast explain` shows why it stayed settled.
 */
import {text} from './rows.js'
import type {Store} from './store.js'

export const SETTLE_VERDICTS = ['delivered', 'needs_input', 'blocked'] as const
export type SettleVerdict = (typeof SETTLE_VERDICTS)[number]

export interface SettleVerdictRow {
  readonly sessionId: string
  readonly turnIndex: number
  readonly verdict: SettleVerdict | null
  readonly why: string | null
  readonly error: string | null
  readonly at: number
  readonly ms: number | null
}

type Row = Record<string, unknown>

function toRow(r: Row): SettleVerdictRow {
  return {
    at: Number(r.at),
    error: r.error === null ? null : text(r.error),
    ms: r.ms === null ? null : Number(r.ms),
    sessionId: String(r.session_id),
    turnIndex: Number(r.turn_index),
    verdict: r.verdict === null ? null : (text(r.verdict) as SettleVerdict),
    why: r.why === null ? null : text(r.why),
  }
}

export function getSettleVerdict(store: Store, sessionId: string, turnIndex: number): SettleVerdictRow | null {
  const r = store.q('SELECT * FROM settle_verdicts WHERE session_id = ? AND turn_index = ?').get(sessionId, turnIndex) as Row | undefined
  return r ? toRow(r) : null
}

/** Record the outcome (first write wins: a turn is judged once). Returns false when a row was already there. */
export function putSettleVerdict(store: Store, row: SettleVerdictRow): boolean {
  const r = store
    .q('INSERT OR IGNORE INTO settle_verdicts (session_id, turn_index, verdict, why, error, at, ms) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(row.sessionId, row.turnIndex, row.verdict, row.why, row.error, row.at, row.ms)
  return r.changes > 0
}
