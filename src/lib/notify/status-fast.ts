/**
 * `cast status` without oclif, for bin/run.js: handles `cast status [--format F] [--json]` and
 * returns false for anything else (help, a bad flag, --path), which oclif then handles.
 *
 * The answer comes from status.json when it still holds (src/lib/notify/status-cache.ts): a Node
 * start and one small file read. Otherwise the store is counted (src/lib/notify/status.ts) and
 * the file written for the next call. Only the miss loads the store's modules.
 */
import fs from 'node:fs'
import path from 'node:path'

import {unknownStatusFields} from '../../core/model/notify.js'
import {castHome, clockFrom, homeDir} from '../home/env.js'
import {
  cacheHolds,
  type CachedCounts,
  configStamp,
  loadStatusCache,
  meKey,
  renderStatus,
  staleMark,
  storeStamp,
  UNSYNCED,
  validUntil,
  writeStatusCache,
} from './status-cache.js'

/** `[--format F] [--json]`, or null for anything else (oclif's to handle). */
export function parseStatusArgs(argv: readonly string[]): {format: string | undefined; json: boolean} | null {
  let format: string | undefined
  let json = false
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a === '--json') json = true
    else if (a === '--format' && i + 1 < argv.length) format = argv[++i]
    else if (a.startsWith('--format=')) format = a.slice('--format='.length)
    else return null
  }

  // A template naming an unknown field: oclif's command says so (exit 2).
  if (format !== undefined && unknownStatusFields(format).length > 0) return null
  return {format, json}
}

/** What `cast status` prints for these counts: the stored `line` unless a format asks for another. */
export function statusText(c: CachedCounts, line: string | null, isStale: boolean, o: {format: string | undefined; json: boolean}): string {
  if (line === null || o.format !== undefined) line = renderStatus(c, o.format)
  line = staleMark(line, isStale)
  return (o.json ? JSON.stringify({...c, line, synced: true, ...(isStale ? {stale: true} : {})}) : line) + '\n'
}

export async function fastStatus(argv: readonly string[]): Promise<boolean> {
  const args = parseStatusArgs(argv)
  if (args === null) return false
  const {format, json} = args
  const env = process.env
  const home = castHome(env)
  const now = clockFrom(env)()
  const print = (c: CachedCounts, line: string | null, isStale: boolean): void => {
    process.stdout.write(statusText(c, line, isStale, args))
  }

  // No store yet: nothing was ever read, so the line cannot say nothing needs you (and no store
  // is created for a status bar).
  if (!fs.existsSync(path.join(home, 'cast.db'))) {
    process.stdout.write((json ? JSON.stringify(UNSYNCED) : UNSYNCED.line) + '\n')
    return true
  }

  const configFile = env.CAST_HOME
    ? path.join(home, 'config.json')
    : path.join(env.XDG_CONFIG_HOME || path.join(homeDir(env), '.config'), 'cast', 'config.json')
  // "fleet": {"default": true}: the hosts are counted too, which is the command's to do (src/lib/fleet/status.ts).
  if (fleetByDefault(configFile)) return false
  const key = meKey(env)
  const cstamp = configStamp(configFile)
  const cached = loadStatusCache(home)
  if (cached && cacheHolds(cached, home, key, cstamp, now)) {
    print(cached.counts, cached.line, readOnly(home))
    return true
  }

  const recencyMs = cached && cached.config_stamp === cstamp ? cached.recency_ms : await fastRecency(configFile)
  // A running daemon counts from the store it keeps open (src/lib/home/read-socket.ts).
  if (fs.existsSync(path.join(home, 'run'))) {
    const {askDaemonRead, envOf, timeZone, writeAll} = await import('../home/read-socket.js')
    const {whoAmI} = await import('../home/env.js')
    const warm = await askDaemonRead(home, {argv: [...argv], cmd: 'status', env: envOf(env), me: whoAmI(env), recencyMs, tz: timeZone()})
    if (warm !== null) {
      writeAll(1, warm.stdout)
      process.exitCode = warm.code
      return true
    }
  }

  const {Store} = await import('../../core/store/store.js')
  const {statusSnapshot} = await import('./status.js')
  const {whoAmI} = await import('../home/env.js')
  const store = new Store(home, {readonly: true})
  try {
    // Stamped after the open (which may create the WAL file) and before the read: a write while
    // counting makes the next call count again.
    const stamp = storeStamp(home)
    const snap = statusSnapshot(store, whoAmI(env), now, recencyMs ?? undefined)
    const line = renderStatus(snap.counts)
    if (stamp !== null)
      writeStatusCache(home, {
        computed_at: now,
        config_stamp: cstamp,
        counts: snap.counts,
        line,
        me_key: key,
        recency_ms: recencyMs,
        stamp,
        v: 1,
        valid_until: validUntil(now, snap.nextChangeAt),
      })
    print(snap.counts, format === undefined ? line : null, store.stale)
  } finally {
    store.close()
  }

  return true
}

/**
 * inbox.recency from the config file without loading the config module (it pulls in oclif, which
 * alone costs more than the budget). A file that does not parse is left to oclif's path, which
 * reports it; a missing file means the default (null).
 */
async function fastRecency(file: string): Promise<number | null> {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch {
    return null
  }

  const raw = JSON.parse(text) as {inbox?: {recency?: unknown}}
  const r = raw?.inbox?.recency
  if (r === undefined) return null
  if (typeof r === 'number') return r
  const {parseDuration} = await import('../../core/model/durations.js')
  const ms = typeof r === 'string' ? parseDuration(r) : null
  if (ms === null || ms <= 0) throw new Error('inbox.recency is not a duration')
  return ms
}

/** A read-only CAST_HOME: the stored counts, marked stale (nothing syncs them). */
function readOnly(home: string): boolean {
  try {
    fs.accessSync(home, fs.constants.W_OK)
    return false
  } catch {
    return true
  }
}

/** Whether the config file asks for the fleet by default (`"fleet": {"default": true}` with hosts). */
function fleetByDefault(file: string): boolean {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch {
    return false
  }

  if (!text.includes('"default"')) return false
  const raw = JSON.parse(text) as {fleet?: {default?: unknown}; hosts?: unknown}
  return raw?.fleet?.default === true && raw.hosts !== null && typeof raw.hosts === 'object' && Object.keys(raw.hosts).length > 0
}
