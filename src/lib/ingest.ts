/**
 * Wiring between commands and the ingest engine: build an Ingester over every adapter, and the
 * one-shot incremental sync `cast sessions` does when no ingester holds the lease.
 */
import {hostname} from 'node:os'

import {ADAPTERS} from '../adapters/index.js'
import {screenMatcher} from '../adapters/screen.js'
import type {AdapterEnv} from '../core/ingest/adapter.js'
import {Ingester, type SyncStats} from '../core/ingest/engine.js'
import {consumeSpool} from '../core/ingest/spool.js'
import {pidAlive} from '../core/ingest/process-table.js'
import {attachScreenSweep, readScreenOverrides, screenSweepOf, sweepScreens} from '../core/ingest/screen.js'
import type {Lease, Store} from '../core/store/store.js'
import {sweepSnoozes} from '../core/store/triage.js'
import {configPath} from './config.js'
import {castHome, deviceName, type Env, homeDir} from './env.js'

/** Commands reach the adapters only through this module (DESIGN §2: never directly). */
export {ADAPTERS} from '../adapters/index.js'
export {SCREEN_KINDS, screenMatcher} from '../adapters/screen.js'

export const INGESTER_LEASE = 'ingester'
/** A holder that has not beaten its heart for this long is presumed gone. */
export const LEASE_STALE_MS = 10_000

export function adapterEnv(env: Env): AdapterEnv {
  return {env, home: homeDir(env)}
}

export function makeIngester(store: Store, env: Env, clock: () => number, me: string): Ingester {
  const ingester = new Ingester(store, ADAPTERS, adapterEnv(env), {clock, device: deviceName(), me})
  // Terminal fallback (src/core/ingest/screen.ts): the tmux sweep this ingester runs.
  let matcher: ReturnType<typeof screenMatcher> | undefined
  const scanAgents = new Set(ADAPTERS.filter((a) => a.processScan).map((a) => a.agent))
  attachScreenSweep(ingester, () => sweepScreens(store, ingester, (matcher ??= screenMatcher(readScreenOverrides(configPath(env)))), {clock, env, scanAgents}))
  return ingester
}

/** Is the lease held by a live ingester? (Same host: the pid must be alive; any host: a fresh heartbeat.) */
export function leaseIsLive(lease: Lease | null, now = Date.now()): boolean {
  if (!lease) return false
  if (lease.host === hostname() && !pidAlive(lease.pid)) return false
  return now - lease.heartbeatAt < LEASE_STALE_MS
}

/**
 * Bring the store up to date before reading it: when no live ingester holds the lease, run one
 * incremental sync in-process. Either way, reconcile the sessions whose time rules came due.
 */
export function syncBeforeRead(store: Store, env: Env, clock: () => number, me: string): SyncStats | null {
  let stats: SyncStats | null = null
  if (!leaseIsLive(store.getLease(INGESTER_LEASE))) {
    const ingester = makeIngester(store, env, clock, me)
    stats = ingester.sync()
    consumeSpool(store, ingester, castHome(env), clock)
    screenSweepOf(ingester)?.() // terminal fallback: one tmux sweep
  }

  // Snoozes that came due wake, and time rules that came due are re-checked (as a sweep does).
  sweepSnoozes(store, clock())
  return stats
}
