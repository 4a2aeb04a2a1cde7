/**
 * The background pass after a recent-first `cast sessions`: a detached
 * process (started by lib/ingest/ingest.ts) that reads every file the answer left unread, with one full
 * incremental sync, then exits. It holds BACKFILL_LEASE meanwhile, so a second `cast sessions`
 * starts no second one; it stands down when a live ingester (the daemon, a watcher) holds the
 * ingester lease, since that one reads everything itself.
 */
import {hostname} from 'node:os'

import {Store} from '../../core/store/store.js'
import {castHome, clockFrom, whoAmI} from '../home/env.js'
import {BACKFILL_LEASE, INGESTER_LEASE, LEASE_STALE_MS, leaseIsLive, makeIngester} from './ingest.js'

function main(): void {
  const env = process.env
  const store = new Store(castHome(env))
  const holder = {host: hostname(), pid: process.pid}
  try {
    if (leaseIsLive(store.getLease(INGESTER_LEASE))) return
    if (!store.acquireLease(BACKFILL_LEASE, holder, Date.now(), (l) => !leaseIsLive(l))) return
    try {
      const clock = clockFrom(env)
      const ingester = makeIngester(store, env, clock, whoAmI(env))
      let beat = Date.now()
      ingester.progress = () => {
        const t = Date.now()
        if (t - beat < LEASE_STALE_MS / 5) return
        beat = t
        store.heartbeatLease(BACKFILL_LEASE, process.pid, t)
      }

      ingester.sync(undefined, {recheck: false})
    } finally {
      store.releaseLease(BACKFILL_LEASE, process.pid)
    }
  } finally {
    store.close()
  }
}

try {
  main()
} catch {
  // A background pass that fails leaves the files unread: the next sync (or `--all`) reads them.
  process.exitCode = 1
}
