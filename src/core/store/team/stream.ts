/**
 * Reading the team's events in the server's order without trusting anyone to hold a lock.
 *
 * `cast_team.publish` takes each event's seq from a sequence, with no lock, after recording the
 * publishing transaction's id (`events.xid`, schema-v2.ts). Seqs are therefore handed out in
 * one order and become visible in another (commit order). A reader that printed seq 6 while 5
 * was still uncommitted would never print 5, so the cursor stops at a missing seq while it may
 * still arrive: the seq was taken by a transaction that was running when the gap was first seen
 * (its xid was assigned before its seq, so it is in that snapshot's list of running
 * transactions). Once every one of those has ended, what is still missing never comes (a rolled
 * back publish, seqs a server crash skipped) and the cursor moves on. A transaction held open on
 * purpose delays the stream at most `maxWaitMs`, and only the stream (publishing never waits).
 *
 * Each device's events are also tracked by (epoch, local_seq): one at or below what was already
 * printed for that device is a copy or out of order, and is dropped.
 */
import type {Pool} from 'pg'

import type {TeamEvent} from './reader.js'

export interface StreamEvent extends TeamEvent {
  readonly epoch: string | null
  readonly localSeq: number | null
}

export interface Snapshot {
  /** Transactions running when the read's snapshot was taken (xid8 as text). */
  readonly xip: ReadonlySet<string>
}

interface Row {
  snap: string
  seq: number | null
  device: string
  epoch: string | null
  local_seq: number | null
  session_id: string
  kind: string
  at: Date
  device_at: number | null
  payload: Record<string, unknown>
}

/** Events after `after` in seq order, with the snapshot they were read in. */
export async function readEvents(
  pool: Pick<Pool, 'query'>,
  after: number,
  limit = 500,
): Promise<{events: StreamEvent[]; snapshot: Snapshot}> {
  const r = await pool.query<Row>(
    `SELECT pg_current_snapshot()::text AS snap, e.seq, e.device, e.epoch, e.local_seq, e.session_id, e.kind, e.at, e.device_at, e.payload
       FROM (SELECT 1) AS one
       LEFT JOIN LATERAL (SELECT * FROM cast_team.events WHERE seq > $1 ORDER BY seq LIMIT $2) AS e ON true`,
    [after, limit],
  )
  const snap = String(r.rows[0]?.snap ?? '0:0:') // a SELECT without FROM joined left: always one row
  const xip = new Set(snap.split(':')[2]?.split(',').filter(Boolean) ?? [])
  const events: StreamEvent[] = []
  for (const x of r.rows) {
    if (x.seq === null) continue
    events.push({
      at: x.at,
      device: String(x.device),
      deviceAt: x.device_at === null ? null : Number(x.device_at),
      epoch: x.epoch === null ? null : String(x.epoch),
      kind: String(x.kind),
      localSeq: x.local_seq === null ? null : Number(x.local_seq),
      payload: x.payload && typeof x.payload === 'object' ? x.payload : {},
      seq: Number(x.seq),
      sessionId: String(x.session_id),
    })
  }

  return {events, snapshot: {xip}}
}

export class EventCursor {
  private gap: {at: number; since: number; xip: readonly string[]} | null = null
  private readonly seen = new Map<string, number>()

  constructor(
    /** The last seq passed (printed, dropped or skipped over). */
    public last: number,
    private readonly maxWaitMs = 30_000,
  ) {}

  /** True while the cursor waits at a missing seq (poll soon). */
  get waiting(): boolean {
    return this.gap !== null
  }

  /** The events to print, in order; moves `last` past everything it decided. */
  accept(events: readonly StreamEvent[], snap: Snapshot, now: number): StreamEvent[] {
    const out: StreamEvent[] = []
    for (const e of events) {
      if (e.seq <= this.last) continue
      if (e.seq > this.last + 1) {
        if (this.gap?.at !== this.last + 1) this.gap = {at: this.last + 1, since: now, xip: [...snap.xip]}
        const inFlight = this.gap.xip.some((x) => snap.xip.has(x))
        if (inFlight && now - this.gap.since < this.maxWaitMs) return out
      }

      this.gap = null
      this.last = e.seq
      if (e.epoch !== null && e.localSeq !== null) {
        const key = `${e.device}\u0000${e.epoch}`
        const before = this.seen.get(key)
        if (before !== undefined && e.localSeq <= before) continue // a copy, or out of its device's order
        this.seen.set(key, e.localSeq)
      }

      out.push(e)
    }

    return out
  }
}
