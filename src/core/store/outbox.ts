/**
 * The team outbox: the local half of publishing to the team store. Triggers added by
 * migration 4 queue a row for every change the team must learn of, in the same transaction as
 * the change, while the store has joined a team. The publisher (src/core/store/team/publisher.ts) sends
 * pending rows in seq order and deletes them only after the server committed them; the server
 * ignores a row it already has (device, epoch, seq), so a crash between the two doubles nothing.
 */
import type {Store} from './store.js'

export interface OutboxRow {
  readonly seq: number
  readonly at: number
  readonly sessionId: string
  readonly kind: 'transition' | 'owners' | 'state_line' | 'kill' | 'decision' | 'summary'
  readonly payload: Record<string, unknown>
}

export interface TeamJoin {
  /** The team's name (config team.name), for status. */
  readonly name: string | null
  /** Random per join of this store: with the device, it names this outbox's seqs on the server. */
  readonly epoch: string
  readonly joinedAt: number
}

type Row = Record<string, unknown>

const JOINED = 'team.joined'

export function teamJoin(store: Store): TeamJoin | null {
  const raw = store.getMeta(JOINED)
  if (!raw) return null
  try {
    return JSON.parse(raw) as TeamJoin
  } catch {
    return null
  }
}

/**
 * Join: from now on every change is queued. The sessions already known are queued once as
 * summaries, so the team sees them without waiting for their next change.
 */
export function markJoined(store: Store, join: TeamJoin): number {
  return store.tx(() => {
    const first = store.getMeta(JOINED) === null
    store.setMeta(JOINED, JSON.stringify(join))
    if (!first) return 0
    return store
      .q(`INSERT INTO outbox (at, session_id, kind, payload) SELECT ?, id, 'summary', '{}' FROM sessions ORDER BY first_seen_at`)
      .run(join.joinedAt).changes
  })
}

/** Leave: nothing more is queued and what was pending is dropped. */
export function markLeft(store: Store): number {
  return store.tx(() => {
    store.q('DELETE FROM meta WHERE key = ?').run(JOINED)
    store.q(`DELETE FROM meta WHERE key LIKE 'team.%'`).run()
    return store.q('DELETE FROM outbox').run().changes
  })
}

export function pendingOutbox(store: Store, limit = 500): OutboxRow[] {
  return (store.q('SELECT * FROM outbox ORDER BY seq LIMIT ?').all(limit) as Row[]).map((r) => ({
    at: Number(r.at),
    kind: String(r.kind) as OutboxRow['kind'],
    payload: parse(r.payload),
    seq: Number(r.seq),
    sessionId: String(r.session_id),
  }))
}

export function countOutbox(store: Store): number {
  return Number((store.q('SELECT COUNT(*) AS n FROM outbox').get() as Row).n)
}

/** The server committed every row up to `seq`: forget them. */
export function ackOutbox(store: Store, seq: number): void {
  store.tx(() => {
    store.q('DELETE FROM outbox WHERE seq <= ?').run(seq)
    store.setMeta('team.last_sync', String(Date.now()))
  })
}

/** Is there a decision card on this machine whose id starts with `prefix`? */
export function hasLocalCard(store: Store, prefix: string): boolean {
  return store.q(`SELECT 1 FROM decisions WHERE substr(id, 1, length(?)) = ? LIMIT 1`).get(prefix, prefix) !== undefined
}

// ---------------------------------------------------------------- actions carried out here

export interface DoneAction {
  readonly actionId: number
  readonly status: 'delivered' | 'refused'
  readonly result: Record<string, unknown>
  readonly reported: boolean
}

/**
 * Record, before it is carried out, that this machine took an action: it never runs twice. With
 * `uid` (the request's own id), false as well when another action carried that request already.
 */
export function claimAction(store: Store, actionId: number, at: number, uid: string | null = null): boolean {
  return (
    store
      .q(`INSERT INTO team_done (action_id, status, result, done_at, uid) VALUES (?, 'running', '{}', ?, ?) ON CONFLICT DO NOTHING`)
      .run(actionId, at, uid).changes > 0
  )
}

/** Whether this machine carried out (or began) the request `uid` before. */
export function seenRequest(store: Store, uid: string): boolean {
  return store.q('SELECT 1 FROM team_done WHERE uid = ?').get(uid) !== undefined
}

export function finishAction(
  store: Store,
  actionId: number,
  status: 'delivered' | 'refused',
  result: Record<string, unknown>,
  at: number,
): void {
  store.q('UPDATE team_done SET status = ?, result = ?, done_at = ? WHERE action_id = ?').run(status, JSON.stringify(result), at, actionId)
}

export function markReported(store: Store, actionId: number): void {
  store.q('UPDATE team_done SET reported = 1 WHERE action_id = ?').run(actionId)
}

export function doneAction(
  store: Store,
  actionId: number,
): (Omit<DoneAction, 'status'> & {status: DoneAction['status'] | 'running'}) | null {
  const r = store.q('SELECT * FROM team_done WHERE action_id = ?').get(actionId) as Row | undefined
  if (!r) return null
  return {
    actionId: Number(r.action_id),
    reported: Boolean(r.reported),
    result: parse(r.result),
    status: String(r.status) as DoneAction['status'] | 'running',
  }
}

/** Results carried out but not yet on the server (the connection dropped in between). */
export function unreportedActions(store: Store): DoneAction[] {
  return (store.q(`SELECT * FROM team_done WHERE reported = 0 AND status != 'running' ORDER BY action_id`).all() as Row[]).map((r) => ({
    actionId: Number(r.action_id),
    reported: false,
    result: parse(r.result),
    status: String(r.status) as DoneAction['status'],
  }))
}

function parse(text: unknown): Record<string, unknown> {
  try {
    return JSON.parse(String(text)) as Record<string, unknown>
  } catch {
    return {}
  }
}
