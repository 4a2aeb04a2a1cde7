/**
 * Applying core/model/reconcile.ts: load each session's inputs, plan its row, write the plan and
 * log one transitions row per change, in one transaction; and reading that log back.
 */
import {planReconcile, type StoredPlacement, summarizeChildren} from '../model/reconcile.js'
import type {Bucket, LogReason, Reason, SessionFacts, TransitionEvent, WorkState} from '../model/types.js'
import {evaluateParks} from './parks.js'
import {num, parseJson, type Row, str} from './rows.js'
import {loadSessions, type SessionRow} from './sessions.js'
import type {Conn} from './conn.js'

export interface Transition {
  readonly seq: number
  readonly ts: number
  readonly sessionId: string
  readonly event: TransitionEvent
  readonly from: WorkState | null
  readonly to: WorkState
  /** The classification's reason, or `park_released` (a park's release, store/parks.ts). */
  readonly reason: LogReason
  readonly bucket: Bucket
  readonly fromBucket: Bucket | null
}

export interface ReconcileResult {
  readonly transitions: number
}

/**
 * Classify and place sessions at `now`; write state, reason and bucket and one transitions row
 * per change, in one transaction. Children are done before their parents, and a changed child
 * brings its parent along. `ids` undefined means every session.
 */
export function reconcile(store: Conn, now: number, ids?: readonly string[]): ReconcileResult {
  return store.tx(() => {
    let transitions = 0
    let targets = ids ? new Set(ids) : undefined
    if (targets && targets.size > 0) {
      // A parent's state depends on its children.
      const parents = store
        .q('SELECT DISTINCT parent_id FROM sessions WHERE parent_id IS NOT NULL AND id IN (SELECT value FROM json_each(?))')
        .all(JSON.stringify([...targets])) as Row[]
      for (const p of parents) targets.add(String(p.parent_id))
    }

    // What classifying reads: not the views' holds and parks.
    const rows = loadSessions(store, targets ? [...targets] : undefined, {holds: false})
    // Children first so the parents see their fresh state.
    rows.sort((a, b) => Number(a.parentId === null) - Number(b.parentId === null))
    const fresh = new Map<string, {state: WorkState; facts: SessionFacts}>()
    for (const row of rows) {
      let children = row.children
      if (row.childIds.length > 0 && row.childIds.some((c) => fresh.has(c))) {
        const kids = store.q('SELECT id, state, facts FROM sessions WHERE parent_id = ?').all(row.id) as Row[]
        children = summarizeChildren(
          kids.map((k) => {
            const f = fresh.get(String(k.id))
            return f ? {facts: f.facts, state: f.state} : {facts: parseJson<Partial<SessionFacts>>(k.facts, {}), state: str(k.state)}
          }),
        )
      }

      transitions += reconcileRow(store, {...row, children}, now, fresh)
    }

    // Parks gated on a session whose turn just ended release in this same pass (store/parks.ts).
    for (const p of evaluateParks(store, now)) {
      const row = loadSessions(store, [p.sessionId], {holds: false})[0]
      if (row) transitions += reconcileRow(store, row, now, fresh, p.action === 'release')
    }

    targets = undefined
    return {transitions}
  })
}

/** Plan one row's reconcile (core/model/reconcile.ts) and apply it: the store only loads and writes. */
function reconcileRow(
  store: Conn,
  row: SessionRow,
  now: number,
  fresh: Map<string, {state: WorkState; facts: SessionFacts}>,
  released = false,
): number {
  const s = store.q('SELECT state, reason, bucket, rule, next_check_at FROM sessions WHERE id = ?').get(row.id) as Row
  const stored: StoredPlacement = {
    bucket: str(s.bucket) as Bucket | null,
    nextCheckAt: num(s.next_check_at),
    reason: str(s.reason) as Reason | null,
    rule: num(s.rule),
    state: str(s.state) as WorkState | null,
    workingSince: row.workingSince,
  }
  const plan = planReconcile({children: row.children, facts: row.facts, isChild: row.parentId !== null, records: row.records, stored}, now)
  const c = plan.classification
  if (plan.releaseFiling) store.q('UPDATE records SET filing = NULL, filed_at = NULL WHERE session_id = ?').run(row.id)
  fresh.set(row.id, {facts: row.facts, state: c.state})
  if (plan.write === 'check') store.q('UPDATE sessions SET rule = ?, next_check_at = ? WHERE id = ?').run(c.rule, c.nextCheckAt, row.id)
  // A park's release is logged with its own reason even when the row's placement did not move.
  if (plan.write !== 'row' && !released) return 0
  store
    .q(
      `UPDATE sessions SET state = ?, reason = ?, rule = ?, bucket = ?, next_check_at = ?,
       state_since = coalesce(?, state_since), working_since = ? WHERE id = ?`,
    )
    .run(c.state, c.reason, c.rule, plan.bucket, c.nextCheckAt, plan.stateSince, plan.workingSince, row.id)
  store
    .q(
      `INSERT INTO transitions (ts, session_id, event, from_state, to_state, reason, bucket, from_bucket)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(now, row.id, plan.event ?? 'transition', stored.state, c.state, released ? 'park_released' : c.reason, plan.bucket, stored.bucket)
  return 1
}

/** Sessions whose answer may change with time alone, due by `now`. */
export function dueForCheck(store: Conn, now: number): string[] {
  return (store.q('SELECT id FROM sessions WHERE next_check_at IS NOT NULL AND next_check_at <= ?').all(now) as Row[]).map((r) =>
    String(r.id),
  )
}

/** The earliest next_check_at, for the watcher's one timer. */
export function nextCheckAt(store: Conn): number | null {
  return num((store.q('SELECT MIN(next_check_at) AS t FROM sessions WHERE next_check_at IS NOT NULL').get() as Row).t)
}

export function lastSeq(store: Conn): number {
  return Number((store.q('SELECT COALESCE(MAX(seq), 0) AS s FROM transitions').get() as Row).s)
}

export function transitionsSince(store: Conn, seq: number, limit = 1000): Transition[] {
  return (store.q('SELECT * FROM transitions WHERE seq > ? ORDER BY seq LIMIT ?').all(seq, limit) as Row[]).map((r) => ({
    bucket: String(r.bucket) as Bucket,
    event: String(r.event) as Transition['event'],
    from: str(r.from_state) as WorkState | null,
    fromBucket: str(r.from_bucket) as Bucket | null,
    reason: String(r.reason) as LogReason,
    seq: Number(r.seq),
    sessionId: String(r.session_id),
    to: String(r.to_state) as WorkState,
    ts: Number(r.ts),
  }))
}
