/**
 * The hook spool: `bin/cast-hook` drops each hook payload as one file under `$CAST_HOME/spool`;
 * the ingester consumes them here, in arrival order. A payload is only ever parsed as JSON data.
 * The reduced hook state of each session is stored as that session's hook contribution, and
 * the names of the files applied are recorded in the same transaction, so neither a crash
 * between the commit and the unlink nor another process consuming the spool at the same time
 * (every command syncs when no daemon runs) ever applies an event twice. Names are compared,
 * not their order: a hook that stamped its name earlier but landed later is still applied.
 */
import fs from 'node:fs'
import path from 'node:path'

import type {Agent} from '../model/types.js'
import type {Store} from '../store/store.js'
import type {Contribution, HookEvent} from './adapter.js'
import type {Ingester} from './engine.js'

export function spoolDir(home: string): string {
  return path.join(home, 'spool')
}

/** `1795980579.890171263.7203.<agent>.json` -> {at, agent}. */
export function parseSpoolName(name: string): {at: number; agent: string} | null {
  const m = /^(\d+)\.(\d+)\.(\d+)\.([a-z0-9_-]+)\.json$/.exec(name)
  if (!m) return null
  return {agent: m[4]!.replaceAll('-', '_'), at: Number(m[1]) * 1000 + Math.floor(Number(m[2]!.padEnd(9, '0').slice(0, 9)) / 1e6)}
}

/** Sort key: seconds and nanoseconds compared as numbers, then pid. */
function order(a: string, b: string): number {
  const pa = a.split('.')
  const pb = b.split('.')
  for (let i = 0; i < 3; i++) {
    const d = Number(pa[i]) - Number(pb[i])
    if (d !== 0) return d
  }

  return 0
}

/** The names of the applied files that may still be on disk (JSON array). */
const APPLIED_KEY = 'spool_applied'
/** Before spool_applied: the name of the last file applied (older names were applied). */
const LEGACY_LAST_KEY = 'spool_last'
/** Payloads larger than this are not hook events: skipped and counted. */
const MAX_PAYLOAD = 4 * 1024 * 1024

export interface SpoolStats {
  consumed: number
  bad: number
  transitions: number
}

/** Each listed entry's hook event, in order (null: a bad entry; an entry another consumer took is left out). */
function readEvents(dir: string, names: readonly string[], clock: () => number): {name: string; event: HookEvent | null}[] {
  const events: {name: string; event: HookEvent | null}[] = []
  for (const name of names) {
    const meta = parseSpoolName(name)
    let event: HookEvent | null = null
    try {
      const text = meta ? readEntry(path.join(dir, name)) : null
      if (meta && text !== null) {
        const payload = JSON.parse(text) as unknown
        if (payload && typeof payload === 'object' && !Array.isArray(payload)) {
          // A stamp from the future (a clock that jumped, a forged name) is clamped to now.
          const at = Math.min(meta.at, Math.max(clock(), Date.now()))
          event = {agent: meta.agent, at, payload: payload as Record<string, unknown>}
        }
      }
    } catch (error) {
      // Consumed and unlinked by another process since the listing: not a bad payload.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue
      event = null
    }

    events.push({event, name})
  }
  return events
}

/** Reduce one event into its session's hook state (null: no adapter, reducer or session takes it). */
function applyEvent(store: Store, ingester: Ingester, event: HookEvent, clock: () => number): {agent: Agent; nativeId: string} | null {
  const adapter = ingester.adapters.find((a) => a.agent === event.agent)
  const reducer = adapter?.hooks
  if (!adapter || !reducer) return null
  const nativeId = reducer.sessionOf(event)
  if (!nativeId) return null
  const source = `hooks://${adapter.agent}`
  const prev = store.getContribution(source, nativeId)
  const prevState = prev ? (JSON.parse(prev) as {hookState?: unknown}).hookState : undefined
  const state = reducer.reduce(prevState ?? reducer.init(), event)
  const contribution: Contribution | null = reducer.contribution(state, nativeId)
  store.upsertContribution(
    source,
    adapter.agent,
    'hook',
    nativeId,
    JSON.stringify({...(contribution ?? {facts: {}, nativeId}), hookState: state}),
    clock(),
  )
  return {agent: adapter.agent, nativeId}
}

/**
 * Would consumeSpool have anything to read: a spool this user owns with an entry in it (a sync
 * that finds nothing else to do leaves the adapters' hook reducers unloaded otherwise).
 */
export function spoolWaiting(home: string): boolean {
  const dir = spoolDir(home)
  if (untrustedSpool(dir) !== null) return false
  try {
    return fs.readdirSync(dir).some((n) => !n.startsWith('.'))
  } catch {
    return false
  }
}

export function consumeSpool(store: Store, ingester: Ingester, home: string, clock: () => number): SpoolStats {
  const dir = spoolDir(home)
  const stats: SpoolStats = {bad: 0, consumed: 0, transitions: 0}
  // A spool someone else owns, or others may write to, is not read: its events could be anyone's.
  if (untrustedSpool(dir) !== null) return stats
  let names: string[]
  try {
    names = fs.readdirSync(dir).filter((n) => !n.startsWith('.'))
  } catch {
    return stats
  }

  if (names.length === 0) return stats
  names.sort(order)
  const events = readEvents(dir, names, clock)
  if (events.length === 0) return stats
  const result = store.tx(() => {
    // Decided inside the transaction: what another process (or this one before a crash)
    // committed is skipped, whatever we listed.
    const applied = appliedNames(store, dir)
    const gone = (name: string): boolean => !fs.existsSync(path.join(dir, name))
    const fresh = events.filter(({name}) => !applied.has(name) && !gone(name))
    if (fresh.length === 0) return {sessions: 0, transitions: 0}
    const touched = new Map<string, {agent: Agent; nativeId: string}>()
    for (const {event} of fresh) {
      const key = event ? applyEvent(store, ingester, event, clock) : null
      if (key === null) stats.bad++
      else {
        touched.set(`${key.agent}\0${key.nativeId}`, key)
        stats.consumed++
      }
    }

    // Names applied earlier stay listed while their file is still there (its consumer may not have
    // unlinked it yet); names gone from disk are dropped, so the list stays short.
    const still = [...applied].filter((n) => !gone(n))
    store.setMeta(APPLIED_KEY, JSON.stringify([...still, ...fresh.map((e) => e.name)]))
    if (stats.bad > 0) {
      store.upsertContribution('hooks://spool', 'spool', 'hook', '-', '{"facts":{}}', clock())
      store.addParseErrors('hooks://spool', stats.bad)
    }

    return ingester.recompose([...touched.values()])
  })
  stats.transitions = result.transitions
  for (const {name} of events) unlinkQuietly(path.join(dir, name))
  return stats
}

/**
 * One spool entry's text: opened without following a symlink and without blocking (a FIFO never
 * hangs the reader), and only a regular file the user owns, at most MAX_PAYLOAD bytes, is read;
 * anything else is null (a bad entry: counted and removed). ENOENT is thrown (another consumer).
 */
export function readEntry(file: string): string | null {
  let fd: number
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw error
    return null
  }

  try {
    const st = fs.fstatSync(fd)
    const uid = process.getuid?.()
    if (!st.isFile() || (uid !== undefined && st.uid !== uid) || st.size > MAX_PAYLOAD) return null
    // Read at most one byte past the cap: a file still growing is refused, never read without end.
    const buf = Buffer.alloc(Math.min(st.size, MAX_PAYLOAD) + 1)
    let n = 0
    while (n < buf.length) {
      const r = fs.readSync(fd, buf, n, buf.length - n, n)
      if (r <= 0) break
      n += r
    }

    if (n > MAX_PAYLOAD) return null
    return buf.toString('utf8', 0, n)
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Why a folder of cast's (CAST_HOME, the spool) must not be trusted, or null when it may: it
 * must be a real folder the user owns that neither group nor others can write to.
 */
export function untrustedFolder(dir: string, what: string): string | null {
  let st: fs.Stats
  try {
    st = fs.lstatSync(dir)
  } catch {
    return null
  }

  const uid = process.getuid?.()
  if (st.isSymbolicLink()) {
    try {
      st = fs.statSync(dir)
    } catch {
      return null
    }
  }

  if (!st.isDirectory()) return `${what} ${dir} is not a folder`
  if (uid !== undefined && st.uid !== uid) return `${what} ${dir} is owned by uid ${st.uid}, not by you (uid ${uid})`
  if ((st.mode & 0o022) !== 0)
    return `${what} ${dir} can be written by ${(st.mode & 0o002) !== 0 ? 'anyone' : 'its group'} (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')})`
  return null
}

export function untrustedSpool(dir: string): string | null {
  return untrustedFolder(dir, 'the hook spool')
}

function appliedNames(store: Store, dir: string): Set<string> {
  const raw = store.getMeta(APPLIED_KEY)
  if (raw !== null) {
    try {
      return new Set(JSON.parse(raw) as string[])
    } catch {
      return new Set()
    }
  }

  // A store from before spool_applied: every file up to the last one recorded was applied.
  const last = store.getMeta(LEGACY_LAST_KEY)
  if (!last) return new Set()
  let names: string[] = []
  try {
    names = fs.readdirSync(dir).filter((n) => parseSpoolName(n) && order(n, last) <= 0)
  } catch {
    // no spool
  }

  return new Set(names)
}

function unlinkQuietly(p: string): void {
  try {
    fs.unlinkSync(p)
  } catch {
    // already gone
  }
}
