/**
 * `cast daemon` keeps status.json and status.line current (src/lib/notify/status-cache.ts): it
 * counts again when the store's stamp changed (a write by any cast process) or a count can have
 * changed with time alone, and writes both files atomically. A status line then reads status.line
 * without starting Node, and `cast status` answers from status.json.
 */
import type {Store} from '../../core/store/store.js'
import type {Env} from '../env.js'
import {configStamp, meKey, renderStatus, STOPPED_LINE, storeStamp, validUntil, writeLine, writeStatusCache} from './status-cache.js'
import {statusSnapshot} from './status.js'

export interface StatusKeeper {
  /** Counts again and writes when something changed; cheap otherwise (two stats). */
  tick(): void
  /** The daemon stops: the line says so rather than go stale. */
  stop(): void
}

export function statusKeeper(
  store: Store,
  env: Env,
  clock: () => number,
  me: string,
  recencyMs: number | null,
  configFile: string,
): StatusKeeper {
  let last: string | null = null
  let until = 0
  return {
    tick() {
      const now = clock()
      const stamp = storeStamp(store.home)
      if (stamp === null || (stamp === last && now < until)) return
      const snap = statusSnapshot(store, me, now, recencyMs ?? undefined)
      until = validUntil(now, snap.nextChangeAt)
      last = stamp
      writeStatusCache(
        store.home,
        {
          computed_at: now,
          config_stamp: configStamp(configFile),
          counts: snap.counts,
          line: renderStatus(snap.counts),
          me_key: meKey(env),
          recency_ms: recencyMs,
          stamp,
          v: 1,
          valid_until: until,
        },
        {line: true},
      )
    },
    stop() {
      writeLine(store.home, STOPPED_LINE)
    },
  }
}
