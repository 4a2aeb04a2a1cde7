/**
 * The team store's machine records, for `cast team join|leave|status|keys` and the publisher: the
 * device this store joined as, moving it when CAST_DEVICE changes, every machine's identity and
 * public key, the actions queued for it.
 */
import os from 'node:os'

import type {Pool, PoolClient} from 'pg'

import {shownName, unsafeName} from '../../model/safe-name.js'
import type {Store} from '../store.js'
import {moveMachine, registerMachine} from './calls.js'

type Q = Pick<Pool | PoolClient, 'query'>

const DEVICE = 'team.device'

/** The device name this store publishes under (recorded at join), or null (joined by an older cast). */
export function joinedDevice(store: Store): string | null {
  return store.getMeta(DEVICE)
}

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

export function recordDevice(store: Store, device: string): void {
  store.setMeta(DEVICE, device)
}

export class DeviceMoveRefused extends Error {
  override name = 'DeviceMoveRefused'
}

/**
 * Keep the server's device row in step with this machine's name. When the name changed since
 * the store joined (CAST_DEVICE set or changed, or the default of an older cast: the bare host
 * name), the new name is registered for this member and the old device's sessions and queued
 * actions move to it (cast_team.move_machine checks the caller owns both). A name another member
 * holds is refused with one line saying what to do. Returns how many sessions moved (null: no change).
 */
export async function ensureDevice(store: Store, c: Q, device: string): Promise<number | null> {
  const was = joinedDevice(store) ?? os.hostname()
  if (store.getMeta(DEVICE) === device) return null
  const bad = unsafeName(device, 'device')
  if (bad)
    throw new DeviceMoveRefused(
      `this machine's device name ${shownName(device, 'device')} is refused (${bad}); set CAST_DEVICE back to "${was}"`,
    )
  try {
    await registerMachine(c, device, null)
  } catch (error) {
    if ((error as {code?: string}).code === '42501')
      throw new DeviceMoveRefused(
        `this machine's device name changed from "${was}" to "${device}" and the team store refused the new name (${(error as Error).message}); set CAST_DEVICE back to "${was}" or to a name no other member uses`,
      )
    throw error
  }

  let moved = 0
  if (was !== device) {
    try {
      moved = await moveMachine(c, was, device)
    } catch (error) {
      // The old name is not this member's (never joined under it, or released): nothing to move.
      if ((error as {code?: string}).code !== '42501') throw error
    }
  }

  recordDevice(store, device)
  return moved
}

/** Actions other machines queued for this device that it has not finished. */
export async function pendingActions(pool: Pool, device: string): Promise<number> {
  const q = await pool.query<{n: number}>(
    `SELECT count(*) AS n FROM cast_team.actions WHERE device = $1 AND status IN ('queued', 'running')`,
    [device],
  )
  return Number(q.rows[0]!.n) // an aggregate: always one row
}

/**
 * Whether `device` is held, now, by a role the admin has bound to `who` (an admitted member).
 * Asked when each teammate's action runs: a member removed after queueing is refused.
 */
export async function requesterAdmitted(pool: Pool, device: string, who: string): Promise<boolean> {
  const q = await pool.query<{ok: boolean}>(
    `SELECT EXISTS (SELECT 1 FROM cast_team.machines m JOIN cast_team.members p ON p.role = m.role
                     WHERE m.device = $1 AND p.who = $2) AS ok`,
    [device, who],
  )
  return q.rows[0]?.ok === true
}
