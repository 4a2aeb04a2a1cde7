/**
 * `cast daemon` keeps status.json and status.line current (src/lib/notify/status-cache.ts): it
 * counts again when its own ingester changed something (markDirty), when another process
 * committed to the store (SQLite's data_version, which the daemon's own writes, its lease
 * heartbeat among them, leave alone), or when a count can have changed with time alone; and it
 * writes both files atomically. Counting reads every session (about 120 ms at 10,000): while
 * changes keep coming it counts at most once every 50 times what the last count took (at least
 * every second), so a busy daemon spends about 2% of a core on it, an idle one nothing (when only
 * the 60 s cap of valid_until runs out, the last count is written again as it was). A status
 * line then reads status.line without starting Node, and `cast status` answers from status.json.
 */
import type {Store} from '../../core/store/store.js'
import type {Env} from '../home/env.js'
import {
  configStamp,
  meKey,
  renderStatus,
  selfProcess,
  STOPPED_LINE,
  storeStamp,
  validUntil,
  writeLine,
  writeStatusCache,
} from './status-cache.js'
import {statusSnapshot} from './status.js'

export interface StatusKeeper {
  /** Counts again and writes when something changed; cheap otherwise (one pragma). */
  tick(): void
  /** The daemon's own ingester changed the store. */
  markDirty(): void
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
  let dirty = true
  let version: number | null = null
  let until = 0
  let earliest = 0
  /** The last count written, its first change with time alone, and the config it was counted under. */
  let last: {entry: Parameters<typeof writeStatusCache>[1]; changeAt: number | null; config: string} | null = null
  const keeper = selfProcess()
  return {
    markDirty() {
      dirty = true
    },
    tick() {
      const now = clock()
      const v = store.dataVersion()
      if (v !== version) dirty = true
      if ((!dirty && now < until) || Date.now() < earliest) return
      const stamp = storeStamp(store.home)
      if (stamp === null) return
      // Only the 60 s cap ran out: nothing was written and no count can have changed with time,
      // so the last count still holds; say so again without reading every session.
      const config = configStamp(configFile)
      if (!dirty && last !== null && (last.changeAt === null || now < last.changeAt) && last.config === config) {
        until = validUntil(now, last.changeAt)
        last.entry = {...last.entry, computed_at: now, stamp, valid_until: until}
        writeStatusCache(store.home, last.entry)
        return
      }

      const t0 = performance.now()
      const snap = statusSnapshot(store, me, now, recencyMs ?? undefined)
      earliest = Date.now() + Math.max(0, 50 * (performance.now() - t0) - 1000)
      until = validUntil(now, snap.nextChangeAt)
      dirty = false
      version = v
      const entry = {
        computed_at: now,
        config_stamp: config,
        counts: snap.counts,
        line: renderStatus(snap.counts),
        me_key: meKey(env),
        keeper,
        recency_ms: recencyMs,
        stamp,
        v: 1 as const,
        valid_until: until,
      }
      last = {changeAt: snap.nextChangeAt, config, entry}
      writeStatusCache(store.home, entry, {line: true})
    },
    stop() {
      writeLine(store.home, STOPPED_LINE)
    },
  }
}
