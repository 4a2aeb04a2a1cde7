/**
 * The team store's machine records, for `cast team join|leave|status|keys`: every machine's
 * identity and public key, take its sessions off the server, count the
 * actions queued for it.
 */
import type {Pool, PoolClient} from 'pg'

export interface MachineKeyRow {
  readonly device: string
  readonly who: string
  /** base64 of the raw 32-byte Ed25519 public key; null when the machine published none. */
  readonly pubkey: string | null
}

/** Every machine with the identity and public key the server has for it. */
export async function machineKeys(c: PoolClient | Pool): Promise<MachineKeyRow[]> {
  const r = await c.query<{device: string; who: string; pubkey: string | null}>(
    `SELECT device, who, to_jsonb(m) ->> 'pubkey' AS pubkey FROM cast_team.machines m ORDER BY device`,
  )
  return r.rows.map((x) => ({device: String(x.device), pubkey: x.pubkey === null ? null : String(x.pubkey), who: String(x.who)}))
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
