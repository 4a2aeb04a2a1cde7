/**
 * Scheduled messages (`cast schedule`): one-shot or recurring, delivered through `cast send`.
 *
 * An armed schedule is a trigger the classifier can verify (a settled session with a recurring
 * one reads dormant/trigger). Delivery is exactly once across concurrent sweepers: each due row
 * is claimed inside an IMMEDIATE transaction (armed → delivering, checked by `changes`), the
 * message goes out outside it, and the row is then marked delivered (a recurring one re-arms at
 * its next occurrence).
 */
import {shortRandomId} from './decisions.js'
import {num, str, text} from './rows.js'
import type {Store} from './store.js'

type Row = Record<string, unknown>

export const SCHEDULE_STATUSES = ['armed', 'delivering', 'delivered', 'cancelled', 'failed'] as const
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number]

export interface Schedule {
  readonly id: string
  readonly sessionId: string
  readonly message: string
  readonly dueAt: number
  readonly everyMs: number | null
  readonly createdAt: number
  readonly createdBy: string
  readonly status: ScheduleStatus
  readonly deliveredAt: number | null
  readonly deliveries: number
  readonly claimedBy: string | null
  readonly lastError: string | null
}

function fromRow(r: Row): Schedule {
  return {
    claimedBy: str(r.claimed_by),
    createdAt: Number(r.created_at),
    createdBy: String(r.created_by),
    deliveredAt: num(r.delivered_at),
    deliveries: Number(r.deliveries),
    dueAt: Number(r.due_at),
    everyMs: num(r.every_ms),
    id: String(r.id),
    lastError: str(r.last_error),
    message: String(r.message),
    sessionId: String(r.session_id),
    status: String(r.status) as ScheduleStatus,
  }
}

export interface NewSchedule {
  readonly sessionId: string
  readonly message: string
  readonly dueAt: number
  readonly everyMs: number | null
  readonly createdAt: number
  readonly createdBy: string
}

/** Arm a schedule; the session is re-placed in the same transaction. */
export function createSchedule(store: Store, s: NewSchedule): Schedule {
  const id = shortRandomId('s')
  store.tx(() => {
    store
      .q(
        `INSERT INTO schedules (id, session_id, message, due_at, every_ms, created_at, created_by, status)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'armed')`,
      )
      .run(id, s.sessionId, s.message, s.dueAt, s.everyMs, s.createdAt, s.createdBy)
    store.reconcile(s.createdAt, [s.sessionId])
  })
  return getSchedule(store, id)!
}

export function getSchedule(store: Store, id: string): Schedule | null {
  const r = store.q('SELECT * FROM schedules WHERE id = ?').get(id) as Row | undefined
  return r ? fromRow(r) : null
}

export type ScheduleResolution = {kind: 'one'; schedule: Schedule} | {kind: 'many'; ids: string[]} | {kind: 'none'}

/** An exact schedule id, or a unique prefix of at least 4 characters. */
export function findSchedule(store: Store, query: string): ScheduleResolution {
  const q = query.trim().toLowerCase()
  const exact = getSchedule(store, q)
  if (exact) return {kind: 'one', schedule: exact}
  if (q.length < 4) return {kind: 'none'}
  const ids = (store.q('SELECT id FROM schedules WHERE substr(id, 1, ?) = ? ORDER BY id LIMIT 11').all(q.length, q) as Row[]).map((r) =>
    String(r.id),
  )
  if (ids.length === 1) return {kind: 'one', schedule: getSchedule(store, ids[0]!)!}
  return ids.length === 0 ? {kind: 'none'} : {ids, kind: 'many'}
}

/** Schedules by due time: only the pending ones (armed, delivering) unless `all`. */
export function listSchedules(store: Store, options: {sessionId?: string; all?: boolean} = {}): Schedule[] {
  const pending = options.all ? '' : ` AND status IN ('armed', 'delivering')`
  const rows = options.sessionId
    ? (store.q(`SELECT * FROM schedules WHERE session_id = ?${pending} ORDER BY due_at, id`).all(options.sessionId) as Row[])
    : (store.q(`SELECT * FROM schedules WHERE 1${pending} ORDER BY due_at, id`).all() as Row[])
  return rows.map(fromRow)
}

/** Cancel an armed schedule. Returns the schedule as it is now, or null when it does not exist. */
export function cancelSchedule(store: Store, id: string, now: number): {schedule: Schedule; cancelled: boolean} | null {
  return store.tx(() => {
    const r = store.q(`UPDATE schedules SET status = 'cancelled' WHERE id = ? AND status = 'armed'`).run(id)
    const s = getSchedule(store, id)
    if (!s) return null
    if (r.changes > 0) store.reconcile(now, [s.sessionId])
    return {cancelled: r.changes > 0, schedule: s}
  })
}

/** Armed schedules due by `now`, oldest first. */
export function dueScheduleIds(store: Store, now: number): string[] {
  return (store.q(`SELECT id FROM schedules WHERE status = 'armed' AND due_at <= ? ORDER BY due_at, id`).all(now) as Row[]).map((r) =>
    String(r.id),
  )
}

/**
 * Claim a due schedule for delivery. Exactly one of several concurrent claimers gets true: the
 * update runs in an IMMEDIATE transaction and only moves a row that is still armed and due.
 */
export function claimSchedule(store: Store, id: string, claimer: string, now: number): boolean {
  return store.tx(() => {
    const r = store
      .q(`UPDATE schedules SET claimed_by = ?, status = 'delivering' WHERE id = ? AND status = 'armed' AND due_at <= ?`)
      .run(claimer, id, now)
    return r.changes === 1
  })
}

/**
 * Finish a claimed delivery. A one-shot ends delivered (or failed); a recurring one re-arms at its
 * next occurrence after `now` (missed occurrences are skipped, not sent in a burst).
 */
export function finishDelivery(store: Store, id: string, claimer: string, outcome: {now: number; error: string | null}): Schedule | null {
  return store.tx(() => {
    const s = getSchedule(store, id)
    if (!s || s.status !== 'delivering' || s.claimedBy !== claimer) return s
    const ok = outcome.error === null
    if (s.everyMs !== null && s.everyMs > 0) {
      const steps = Math.max(1, Math.floor((outcome.now - s.dueAt) / s.everyMs) + 1)
      const next = s.dueAt + steps * s.everyMs
      store
        .q(
          `UPDATE schedules SET status = 'armed', due_at = ?, claimed_by = NULL, last_error = ?,
             deliveries = deliveries + ?, delivered_at = CASE WHEN ? THEN ? ELSE delivered_at END WHERE id = ?`,
        )
        .run(next, outcome.error, ok ? 1 : 0, ok ? 1 : 0, outcome.now, id)
    } else if (ok) {
      store
        .q(`UPDATE schedules SET status = 'delivered', delivered_at = ?, deliveries = deliveries + 1, last_error = NULL WHERE id = ?`)
        .run(outcome.now, id)
    } else {
      store.q(`UPDATE schedules SET status = 'failed', last_error = ? WHERE id = ?`).run(outcome.error, id)
    }

    store.reconcile(outcome.now, [s.sessionId])
    return getSchedule(store, id)
  })
}

/**
 * Deliveries whose claimer died between claim and finish. Whether the message went out is
 * unknown, so they are marked failed (never re-sent: a duplicate is worse than a miss the user
 * can see in `cast schedule list --all`).
 */
export function failAbandonedClaims(store: Store, isAbandoned: (claimer: string) => boolean, now: number): string[] {
  const stuck = (store.q(`SELECT id, claimed_by, session_id FROM schedules WHERE status = 'delivering'`).all() as Row[]).filter((r) =>
    isAbandoned(text(r.claimed_by ?? '')),
  )
  if (stuck.length === 0) return []
  return store.tx(() => {
    const out: string[] = []
    for (const r of stuck) {
      const s = getSchedule(store, String(r.id))
      if (!s || s.status !== 'delivering' || s.claimedBy !== str(r.claimed_by)) continue
      const error = `the delivering process (${s.claimedBy}) died mid-delivery; not re-sent`
      if (s.everyMs !== null && s.everyMs > 0) {
        const steps = Math.max(1, Math.floor((now - s.dueAt) / s.everyMs) + 1)
        store
          .q(`UPDATE schedules SET status = 'armed', due_at = ?, claimed_by = NULL, last_error = ? WHERE id = ?`)
          .run(s.dueAt + steps * s.everyMs, error, s.id)
      } else {
        store.q(`UPDATE schedules SET status = 'failed', last_error = ? WHERE id = ?`).run(error, s.id)
      }

      store.reconcile(now, [s.sessionId])
      out.push(s.id)
    }

    return out
  })
}
