/**
 * The lean read behind `cast status`: one row per session with only what the status line counts
 * (state, bucket, ownership, recency, the quiet clock), no facts parsed; bench/status.js measures it from a warm store.
 */
import type {Reason} from '../model/types.js'
import {text} from './rows.js'
import type {Store} from './store.js'

export interface StatusRow {
  readonly state: string | null
  readonly reason: Reason | null
  readonly bucket: string | null
  readonly parentId: string | null
  readonly runner: string | null
  readonly lastActivityAt: number | null
  readonly firstSeenAt: number
  readonly workingSince: number | null
  readonly lastOutputAt: number | null
  readonly pinned: boolean
  readonly owners: readonly string[]
}

export function statusRows(store: Store): StatusRow[] {
  const rows = store
    .q(
      `SELECT s.state, s.reason, s.bucket, s.parent_id, s.runner, s.last_activity_at, s.first_seen_at, s.working_since,
              CASE WHEN s.state = 'working' THEN json_extract(s.facts, '$.lastOutputAt') END AS last_output_at, COALESCE(r.pinned, 0) AS pinned,
              (SELECT group_concat(o.who, char(10)) FROM owners o WHERE o.session_id = s.id) AS owners
         FROM sessions s LEFT JOIN records r ON r.session_id = s.id`,
    )
    .raw()
    .all() as unknown[][]
  const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))
  return rows.map((r) => ({
    bucket: r[2] as string | null,
    firstSeenAt: Number(r[6]),
    lastActivityAt: num(r[5]),
    lastOutputAt: num(r[8]),
    owners: r[10] ? text(r[10]).split('\n') : [],
    parentId: r[3] as string | null,
    pinned: Number(r[9]) === 1,
    reason: r[1] as Reason | null,
    runner: r[4] as string | null,
    state: r[0] as string | null,
    workingSince: num(r[7]),
  }))
}
