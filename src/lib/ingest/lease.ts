/**
 * The live ingester's lease as readers see it, apart from the ingest wiring (ingest.ts, which loads
 * every adapter): `cast sessions` checks it first, and loads the ingester only to sync when no live
 * ingester holds it (with a live daemon a no-op `cast sessions` does nothing but read).
 */
import {hostname} from 'node:os'

import {pidAlive, sandboxedView} from '../../core/ingest/process-table.js'
import type {Lease} from '../../core/store/store.js'

export const INGESTER_LEASE = 'ingester'
/** Held by the background pass that reads what a recent-first `cast sessions` left (backfill.ts). */
export const BACKFILL_LEASE = 'backfill'
/** A holder that has not beaten its heart for this long is presumed gone. */
export const LEASE_STALE_MS = 10_000

/**
 * Is the lease held by a live ingester? (Same host: the pid must be alive; any host: a fresh
 * heartbeat.) Inside an agent's sandbox (a PID namespace of its own) the holder's pid is out of
 * sight, so the heartbeat alone decides, as for another host.
 */
export function leaseIsLive(lease: Lease | null, now = Date.now()): boolean {
  if (!lease) return false
  if (lease.host === hostname() && !pidAlive(lease.pid) && sandboxedView() === null) return false
  return now - lease.heartbeatAt < LEASE_STALE_MS
}
