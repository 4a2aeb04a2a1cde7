/**
 * Follow the transitions log as it grows, for `cast notify`, `cast daemon --notify` and
 * `cast inbox`. No polling loop over the store: the follower wakes on the store's own files
 * (an inotify watch on the folder of cast.db: every commit touches cast.db-wal), and, when
 * `ingest` is set and no ingester holds the lease, runs the ingester in-process the way
 * `cast sessions -w` does, waking on its passes. One slow safety tick (2 s) covers a missed
 * file event and takes the lease over when its holder goes away.
 */
import fs from 'node:fs'

import {consumeSpool, spoolDir} from '../../core/ingest/spool.js'
import type {LiveIngester} from '../../core/ingest/live.js'
import type {Store} from '../../core/store/store.js'
import {castHome, type Env} from '../home/env.js'
import {INGESTER_LEASE, leaseIsLive, makeIngester} from './ingest.js'

export interface Follower {
  /** This process holds the ingester lease. */
  readonly ingesting: boolean
  stop(): Promise<void>
}

export const SAFETY_TICK_MS = 2000

export async function followLog(o: {
  store: Store
  env: Env
  clock: () => number
  me: string
  ingest: boolean
  onWake: () => void
  log?: (m: string) => void
}): Promise<Follower> {
  const home = castHome(o.env)
  let live: LiveIngester | null = null
  let stopped = false
  let pending: NodeJS.Timeout | null = null
  const wake = (): void => {
    if (stopped || pending) return
    pending = setTimeout(() => {
      pending = null
      if (!stopped) o.onWake()
    }, 15)
  }

  const tryTakeOver = async (): Promise<void> => {
    if (!o.ingest || live || stopped) return
    if (leaseIsLive(o.store.getLease(INGESTER_LEASE))) return
    const {LiveIngester} = await import('../../core/ingest/live.js')
    const ingester = makeIngester(o.store, o.env, o.clock, o.me)
    const candidate = new LiveIngester(o.store, ingester, {
      clock: o.clock,
      extraDirs: [spoolDir(home)],
      leaseName: INGESTER_LEASE,
      log: o.log,
      onChange: wake,
      onExtra: () => consumeSpool(o.store, ingester, home, o.clock),
      onLost: () => {
        live = null
      },
    })
    if (!candidate.tryAcquire((l) => !leaseIsLive(l))) return
    live = candidate
    candidate.catchUp()
    await candidate.watch()
  }

  let watcher: fs.FSWatcher | null = null
  try {
    watcher = fs.watch(home, {persistent: true}, (_event, name) => {
      if (name === null || String(name).startsWith('cast.db')) wake()
    })
    watcher.on('error', () => undefined)
  } catch {
    watcher = null
  }

  await tryTakeOver()
  const safety = setInterval(() => {
    wake()
    void tryTakeOver()
  }, SAFETY_TICK_MS)
  return {
    get ingesting() {
      return live !== null
    },
    async stop() {
      stopped = true
      clearInterval(safety)
      if (pending) clearTimeout(pending)
      watcher?.close()
      await live?.stop()
      live = null
    },
  }
}
