/**
 * The leases table: who holds a named job (the live ingester, the backfill), with a heartbeat
 * that goes stale when the holder dies.
 */
import {parseJson, type Row} from './rows.js'
import type {Conn} from './conn.js'

export interface Lease {
  readonly name: string
  readonly pid: number
  readonly host: string
  readonly startedAt: number
  readonly heartbeatAt: number
  readonly info: Record<string, unknown>
}

/** Take the named lease if it is free, ours, or its holder is dead/stale. */
export function acquireLease(
  store: Conn,
  name: string,
  holder: {pid: number; host: string},
  now: number,
  isStale: (l: Lease) => boolean,
  info: Record<string, unknown> = {},
): boolean {
  return store.tx(() => {
    const cur = getLease(store, name, now)
    if (cur && !(cur.pid === holder.pid && cur.host === holder.host) && !isStale(cur)) return false
    store
      .q(
        `INSERT INTO leases (name, pid, host, started_at, heartbeat_at, info) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET pid = excluded.pid, host = excluded.host, started_at = excluded.started_at,
         heartbeat_at = excluded.heartbeat_at, info = excluded.info`,
      )
      .run(name, holder.pid, holder.host, now, now, JSON.stringify(info))
    return true
  })
}

/**
 * Beat the lease's heart; false when the lease is no longer this holder's. With a token (kept in
 * the lease's info), the holder is that token, not only the pid: pids repeat across pid
 * namespaces and hosts.
 */
export function heartbeatLease(
  store: Conn,
  name: string,
  pid: number,
  now: number,
  info?: Record<string, unknown>,
  token?: string,
): boolean {
  const who = token === undefined ? '' : ` AND json_extract(info, '$.token') IS ?`
  const args = token === undefined ? [name, pid] : [name, pid, token]
  const r = info
    ? store.q(`UPDATE leases SET heartbeat_at = ?, info = ? WHERE name = ? AND pid = ?${who}`).run(now, JSON.stringify(info), ...args)
    : store.q(`UPDATE leases SET heartbeat_at = ? WHERE name = ? AND pid = ?${who}`).run(now, ...args)
  return r.changes > 0
}

/** Is the lease still this holder's? (Checked inside each of the live ingester's write transactions.) */
export function holdsLease(store: Conn, name: string, pid: number, token: string): boolean {
  return (
    store.q(`SELECT 1 FROM leases WHERE name = ? AND pid = ? AND json_extract(info, '$.token') IS ?`).get(name, pid, token) !== undefined
  )
}

export function releaseLease(store: Conn, name: string, pid: number, token?: string): void {
  if (token === undefined) store.q('DELETE FROM leases WHERE name = ? AND pid = ?').run(name, pid)
  else store.q(`DELETE FROM leases WHERE name = ? AND pid = ? AND json_extract(info, '$.token') IS ?`).run(name, pid, token)
}

/**
 * The lease, with a heartbeat (or start) from the future clamped to `now` and written back so:
 * a clock that jumped back, or a forged row, never keeps a dead holder fresh; it goes stale
 * like any other from now on.
 */
export function getLease(store: Conn, name: string, now = Date.now()): Lease | null {
  const r = store.q('SELECT * FROM leases WHERE name = ?').get(name) as Row | undefined
  if (!r) return null
  let heartbeatAt = Number(r.heartbeat_at)
  let startedAt = Number(r.started_at)
  if (heartbeatAt > now || startedAt > now || !Number.isFinite(heartbeatAt)) {
    heartbeatAt = Number.isFinite(heartbeatAt) ? Math.min(heartbeatAt, now) : 0
    startedAt = Math.min(startedAt, heartbeatAt)
    try {
      // Compared in SQL, not against the value read: a stamp past 2^53 (up to SQLite's 2^63 - 1)
      // does not survive the trip through a JavaScript number, and an equality on it never matched,
      // so the clamp was never written and the lease stayed fresh forever.
      store
        .q(
          'UPDATE leases SET heartbeat_at = MIN(heartbeat_at, ?), started_at = MIN(started_at, ?) WHERE name = ? AND (heartbeat_at > ? OR started_at > ?)',
        )
        .run(heartbeatAt, startedAt, name, now, now)
    } catch {
      // a read-only store: clamped for this reading only
    }
  }

  return {
    heartbeatAt,
    host: String(r.host),
    info: parseJson(r.info, {}),
    name: String(r.name),
    pid: Number(r.pid),
    startedAt,
  }
}
