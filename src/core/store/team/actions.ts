/**
 * The team store's actions table: what a teammate's machine queued for a session, claimed and
 * reported by the machine the session runs on, and read back by the requester. SQL only: the
 * protocol (what is signed, what is checked before anything runs) and the executor are src/team.
 */
import type {Pool} from 'pg'

/** An action as the executing machine reads it from the team store. */
export interface QueuedAction {
  readonly id: number
  /** The requester's own id for the request (a UUID): what is signed, and what replays are refused by. */
  readonly uid: string | null
  readonly device: string
  readonly sessionId: string
  readonly verb: string
  readonly args: Record<string, unknown>
  readonly requestedBy: string
  readonly requestedFrom: string
  /** Milliseconds since the epoch; null when the row has none. */
  readonly expiresAt: number | null
  /** base64 of the requester's Ed25519 signature (src/team/protocol.ts). */
  readonly sig: string | null
}

export type ActionStatus = 'queued' | 'running' | 'delivered' | 'refused'

/** A cast_team.actions row as pg returns it (jsonb parsed, bigints as numbers: client.ts's type parser). */
interface ActionDbRow {
  readonly id: number
  readonly uid?: string | null
  readonly device: string
  readonly session_id: string
  readonly verb: string
  readonly args: Record<string, unknown> | null
  readonly requested_by: string
  readonly requested_from: string
  readonly expires_at?: Date | string | null
  readonly sig?: string | null
  readonly status: string
  readonly result: Record<string, unknown> | null
}

function fromRow(r: ActionDbRow): QueuedAction {
  const exp = r.expires_at === null || r.expires_at === undefined ? null : new Date(r.expires_at).getTime()
  return {
    args: r.args !== null && typeof r.args === 'object' && !Array.isArray(r.args) ? r.args : {},
    device: String(r.device),
    expiresAt: exp !== null && Number.isFinite(exp) ? exp : null,
    id: Number(r.id),
    requestedBy: String(r.requested_by),
    requestedFrom: String(r.requested_from),
    sessionId: String(r.session_id),
    sig: typeof r.sig === 'string' ? r.sig : null,
    uid: typeof r.uid === 'string' ? r.uid : null,
    verb: String(r.verb),
  }
}

/** Write an action's outcome (only while it is queued or running) and wake its requester. */
export async function reportAction(
  pool: Pool,
  id: number,
  status: 'delivered' | 'refused',
  result: Record<string, unknown>,
): Promise<void> {
  await pool.query(
    `UPDATE cast_team.actions SET status = $2, result = $3, done_at = now() WHERE id = $1 AND status IN ('queued', 'running')`,
    [id, status, JSON.stringify(result)],
  )
  await pool.query(`SELECT pg_notify('cast_action_done', $1)`, [String(id)])
}

/** Actions for this device a crash left running on the server. */
export async function runningActions(pool: Pool, device: string): Promise<QueuedAction[]> {
  const r = await pool.query<ActionDbRow>(`SELECT * FROM cast_team.actions WHERE device = $1 AND status = 'running' ORDER BY id`, [device])
  return r.rows.map(fromRow)
}

/** Claim up to `limit` queued actions for this device (queued -> running), in id order. */
export async function claimQueued(pool: Pool, device: string, limit = 20): Promise<QueuedAction[]> {
  const r = await pool.query<ActionDbRow>(
    `UPDATE cast_team.actions SET status = 'running', claimed_at = now()
      WHERE id IN (SELECT id FROM cast_team.actions WHERE device = $1 AND status = 'queued' ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)
      RETURNING *`,
    [device, limit],
  )
  return r.rows.map(fromRow).sort((a, b) => a.id - b.id)
}

// ---------------------------------------------------------------- the requesting side

export interface TeamSessionRef {
  readonly id: string
  readonly device: string
  readonly nativeId: string
}

/** Sessions on other machines whose id or native id starts with `query`. */
export async function findRemote(pool: Pool, query: string, notDevice: string): Promise<TeamSessionRef[]> {
  const q = query.trim().toLowerCase()
  const r = await pool.query<{id: string; device: string; native_id: string | null}>(
    `SELECT id, device, summary ->> 'native_id' AS native_id FROM cast_team.sessions
      WHERE device <> $2 AND (id LIKE $1 || '%' OR lower(summary ->> 'native_id') LIKE $1 || '%') ORDER BY id LIMIT 10`,
    [q.replace(/[%_\\]/g, (c) => '\\' + c), notDevice],
  )
  return r.rows.map((x) => ({device: String(x.device), id: String(x.id), nativeId: String(x.native_id)}))
}

/** The session on another machine whose open decision card starts with `card`. */
export async function findRemoteCard(pool: Pool, card: string, notDevice: string): Promise<(TeamSessionRef & {card: string})[]> {
  const r = await pool.query<{id: string; device: string; native_id: string | null; card: string}>(
    `SELECT id, device, summary ->> 'native_id' AS native_id, summary -> 'decision' ->> 'id' AS card FROM cast_team.sessions
      WHERE device <> $2 AND summary -> 'decision' ->> 'id' LIKE $1 || '%' LIMIT 10`,
    [card.trim().replace(/[%_\\]/g, (c) => '\\' + c), notDevice],
  )
  return r.rows.map((x) => ({card: String(x.card), device: String(x.device), id: String(x.id), nativeId: String(x.native_id)}))
}

/** Queue a signed action for the machine its session runs on; its server id. */
export async function queueAction(
  pool: Pool,
  a: Omit<QueuedAction, 'id'> & {uid: string; expiresAt: number; sig: string},
): Promise<number> {
  const r = await pool.query<{id: number}>(
    `INSERT INTO cast_team.actions (uid, device, session_id, verb, args, requested_by, requested_from, expires_at, sig)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
    [a.uid, a.device, a.sessionId, a.verb, JSON.stringify(a.args), a.requestedBy, a.requestedFrom, new Date(a.expiresAt), a.sig],
  )
  const id = Number(r.rows[0]!.id) // INSERT … RETURNING of one row: always one row
  await pool.query(`SELECT pg_notify('cast_actions', $1)`, [a.device])
  return id
}

export interface ActionState {
  readonly id: number
  readonly status: ActionStatus
  readonly result: Record<string, unknown> | null
}

export async function actionState(pool: Pool, id: number): Promise<ActionState> {
  const r = await pool.query<Pick<ActionDbRow, 'id' | 'result' | 'status'>>(
    'SELECT id, status, result FROM cast_team.actions WHERE id = $1',
    [id],
  )
  const row = r.rows[0]
  return {id, result: row?.result ?? null, status: String(row?.status ?? 'queued') as ActionStatus}
}

/** Wait for the action's result up to `timeoutMs`; the last state seen (maybe still queued). */
export async function waitForAction(url: string, pool: Pool, id: number, timeoutMs: number): Promise<ActionState> {
  const {openClient} = await import('./client.js')
  const deadline = Date.now() + timeoutMs
  let listener: Awaited<ReturnType<typeof openClient>> | null = null
  let wake: (() => void) | null = null
  try {
    listener = await openClient(url)
    listener.on('notification', (n) => {
      if (n.payload === String(id)) wake?.()
    })
    await listener.query('LISTEN cast_action_done')
  } catch {
    listener = null // polling alone still gets there
  }

  try {
    for (;;) {
      const s = await actionState(pool, id)
      if (s.status === 'delivered' || s.status === 'refused') return s
      const left = deadline - Date.now()
      if (left <= 0) return s
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 1000))
        wake = () => {
          clearTimeout(t)
          resolve()
        }
      })
      wake = null
    }
  } finally {
    await listener?.end().catch(() => {})
  }
}
