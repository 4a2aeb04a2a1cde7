/**
 * The parks table (migration 7): a stash gated on another session (src/core/model/parks.ts
 * decides). `evaluateParks` runs at the end of every reconcile, in its transaction, so a park
 * releases in the same pass that logs the other session's turn ending.
 */
import {type ActiveParks, decidePark, type Park, PARK_STALE_MS, type ParkEnd, type ParkGate} from '../model/parks.js'
import type {Filing} from '../model/types.js'
import {num, type Row, str} from './rows.js'
import type {Conn} from './conn.js'

function parkFromRow(r: Row): Park {
  return {
    afterSeq: Number(r.after_seq),
    ended: str(r.ended) as ParkEnd | null,
    endedAt: num(r.ended_at),
    madeAt: Number(r.made_at),
    note: str(r.note),
    seenAt: Number(r.seen_at),
    sessionId: String(r.session_id),
    untilId: String(r.until_id),
  }
}

/** Each session's park (holding or the last ended one); `list` a JSON array of ids, or null for all. */
export function loadParks(store: Conn, list: string | null): Map<string, Park> {
  const rows =
    list === null
      ? (store.q('SELECT * FROM parks').all() as Row[])
      : (store.q('SELECT * FROM parks WHERE session_id IN (SELECT value FROM json_each(?))').all(list) as Row[])
  return new Map(rows.map((r) => [String(r.session_id), parkFromRow(r)]))
}

/** The parks holding now, by parked session. */
export function activeParks(store: Conn): ActiveParks {
  const rows = store.q('SELECT session_id, until_id FROM parks WHERE ended_at IS NULL').all() as Row[]
  return new Map(rows.map((r) => [String(r.session_id), {sessionId: String(r.session_id), untilId: String(r.until_id)}]))
}

export function savePark(store: Conn, p: Park): void {
  store
    .q(
      `INSERT INTO parks (session_id, until_id, note, made_at, seen_at, after_seq, ended_at, ended) VALUES (?, ?, ?, ?, ?, ?, NULL, NULL)
       ON CONFLICT (session_id) DO UPDATE SET until_id = excluded.until_id, note = excluded.note, made_at = excluded.made_at,
         seen_at = excluded.seen_at, after_seq = excluded.after_seq, ended_at = NULL, ended = NULL`,
    )
    .run(p.sessionId, p.untilId, p.note, p.madeAt, p.seenAt, p.afterSeq)
}

/** What happened to the other session since the park was made. */
function gateOf(store: Conn, p: Park): ParkGate {
  const other = store.q('SELECT bucket FROM sessions WHERE id = ?').get(p.untilId) as Row | undefined
  if (!other) return {gone: true, missing: true, rested: false}
  const bucket = str(other.bucket)
  const hit = store
    .q(
      `SELECT max(event = 'gone') AS gone, max(from_state = 'working' AND to_state != 'working') AS rested
       FROM transitions WHERE session_id = ? AND seq > ?`,
    )
    .get(p.untilId, p.afterSeq) as Row
  return {gone: bucket === 'killed' || bucket === 'dismissed' || Number(hit.gone) === 1, missing: false, rested: Number(hit.rested) === 1}
}

export interface ParkOutcome {
  readonly sessionId: string
  readonly action: 'release' | 'drop'
}

/**
 * Decide every holding park at `now` and apply it: end it, and for a release or a drop lift the
 * stash. Returns the sessions whose stash was lifted, for the caller to reconcile (a release
 * logs a `park_released` transition). Ended parks older than PARK_STALE_MS are deleted.
 */
export function evaluateParks(store: Conn, now: number): ParkOutcome[] {
  const rows = store
    .q('SELECT p.*, r.filing FROM parks p LEFT JOIN records r ON r.session_id = p.session_id WHERE p.ended_at IS NULL')
    .all() as Row[]
  const out: ParkOutcome[] = []
  for (const r of rows) {
    const park = parkFromRow(r)
    const d = decidePark(park, str(r.filing) as Filing | null, gateOf(store, park), now)
    if (d.action === 'keep') continue
    const ended: ParkEnd = d.action === 'release' ? d.why : d.action === 'drop' ? 'stale' : 'lifted'
    store.q('UPDATE parks SET ended_at = ?, ended = ? WHERE session_id = ?').run(now, ended, park.sessionId)
    if (d.action === 'end') continue
    store.q('UPDATE records SET filing = NULL, filed_at = NULL WHERE session_id = ?').run(park.sessionId)
    out.push({action: d.action, sessionId: park.sessionId})
  }

  store.q('DELETE FROM parks WHERE ended_at IS NOT NULL AND ended_at < ?').run(now - PARK_STALE_MS)
  return out
}
