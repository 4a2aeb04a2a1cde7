/**
 * The team store's machine records, for `cast team join|leave|status`: register this device,
 * take its sessions off the server, count the actions queued for it.
 */
import type {Pool, PoolClient} from 'pg'

/** Register (or re-register) this device under the identity it joined with. */
export async function registerMachine(c: PoolClient | Pool, device: string, who: string): Promise<void> {
  await c.query(
    `INSERT INTO cast_team.machines (device, who) VALUES ($1, $2)
     ON CONFLICT (device) DO UPDATE SET who = excluded.who, last_seen = now()`,
    [device, who],
  )
}

/** Take this device's session summaries off the server; how many were there. */
export async function removeDeviceSessions(pool: Pool, device: string): Promise<number> {
  return (await pool.query('DELETE FROM cast_team.sessions WHERE device = $1', [device])).rowCount ?? 0
}

/** Actions other machines queued for this device that it has not finished. */
export async function pendingActions(pool: Pool, device: string): Promise<number> {
  const q = await pool.query<{n: number}>(
    `SELECT count(*) AS n FROM cast_team.actions WHERE device = $1 AND status IN ('queued', 'running')`,
    [device],
  )
  return Number(q.rows[0]!.n) // an aggregate: always one row
}
