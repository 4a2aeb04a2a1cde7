/**
 * Reading the team store's actions and sessions for the requesting side: which machine runs a
 * session (or holds a card), and the state of an action it queued (writes go through the
 * functions in calls.ts). SQL only: the protocol (what is signed, what is checked before anything
 * runs) and the executor are src/team.
 */
import type {Pool} from 'pg'

export type ActionStatus = 'queued' | 'running' | 'delivered' | 'refused'

// ---------------------------------------------------------------- the requesting side

export interface TeamSessionRef {
  readonly id: string
  readonly device: string
  readonly nativeId: string
}

/** Only rows whose machine's role is an admitted member (what the views show: reader.ts). */
const ADMITTED = `EXISTS (SELECT 1 FROM cast_team.machines m JOIN cast_team.members p ON p.role = m.role WHERE m.device = cast_team.sessions.device)`

/** Sessions on other machines whose id or native id starts with `query`. */
export async function findRemote(pool: Pool, query: string, notDevice: string): Promise<TeamSessionRef[]> {
  const q = query.trim().toLowerCase()
  const r = await pool.query<{id: string; device: string; native_id: string | null}>(
    `SELECT id, device, summary ->> 'native_id' AS native_id FROM cast_team.sessions
      WHERE device <> $2 AND (id LIKE $1 || '%' OR lower(summary ->> 'native_id') LIKE $1 || '%') AND ${ADMITTED} ORDER BY id LIMIT 10`,
    [q.replace(/[%_\\]/g, (c) => '\\' + c), notDevice],
  )
  return r.rows.map((x) => ({device: String(x.device), id: String(x.id), nativeId: String(x.native_id)}))
}

/** The session on another machine whose open decision card starts with `card`. */
export async function findRemoteCard(pool: Pool, card: string, notDevice: string): Promise<(TeamSessionRef & {card: string})[]> {
  const r = await pool.query<{id: string; device: string; native_id: string | null; card: string}>(
    `SELECT id, device, summary ->> 'native_id' AS native_id, summary -> 'decision' ->> 'id' AS card FROM cast_team.sessions
      WHERE device <> $2 AND summary -> 'decision' ->> 'id' LIKE $1 || '%' AND ${ADMITTED} LIMIT 10`,
    [card.trim().replace(/[%_\\]/g, (c) => '\\' + c), notDevice],
  )
  return r.rows.map((x) => ({card: String(x.card), device: String(x.device), id: String(x.id), nativeId: String(x.native_id)}))
}

export interface ActionState {
  readonly id: number
  readonly status: ActionStatus
  readonly result: Record<string, unknown> | null
}

export async function actionState(pool: Pool, id: number): Promise<ActionState> {
  const r = await pool.query<{id: number; status: string; result: Record<string, unknown> | null}>(
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
