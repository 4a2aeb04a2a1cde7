/**
 * The live ingester's cheap stat sweep, one file at a time: what changed since the store last
 * read it, by its mark (device, inode, size, mtime; a SQLite source with its -wal file).
 */
import fs from 'node:fs'

import type {FileRow} from '../store/store.js'
import {quietTail} from './jsonl-read.js'
import {sameStat} from './same-stat.js'

/** A file modified this recently can still change: the periodic stat sweep looks at it. */
export const RECENT_MS = 15 * 60_000

/** The stat sweep looks at most at this many recent files (the newest first). */
const SWEEP_MAX = 5000
/**
 * A recent file the store last saw change longer ago than this is stat'ed by one sweep in
 * SWEEP_SPREAD (in turn), not by every one: its writes reach the file watcher, which the sweep
 * only backs up (a change it dropped shows within SWEEP_SPREAD sweeps). A file written lately,
 * or with a last line waiting to be tried, is stat'ed every sweep.
 */
const SWEEP_HOT_MS = 60_000
const SWEEP_SPREAD = 15

/**
 * One stat sweep (`turn`: how many came before) over the recent files: the paths to read (changed
 * or gone). Files gone or quiet for good leave `recent`.
 */
export function sweepRecent(recent: Map<string, FileRow>, turn: number, now: number): Set<string> {
  const out = new Set<string>()
  if (recent.size > SWEEP_MAX) {
    const newest = [...recent].sort((a, b) => b[1].mtimeMs - a[1].mtimeMs).slice(SWEEP_MAX)
    for (const [p] of newest) recent.delete(p)
  }

  const share = turn % SWEEP_SPREAD
  let i = 0
  for (const [p, row] of recent) {
    const pseudo = p.includes('://')
    const hot = pseudo || now - row.mtimeMs < SWEEP_HOT_MS || row.offset < row.size
    if (!hot && i++ % SWEEP_SPREAD !== share) continue
    const verdict = pseudo ? 'forget' : sweepOne(p, row, now)
    if (verdict === 'forget' || verdict === 'gone') recent.delete(p)
    if (verdict === 'read' || verdict === 'gone') out.add(p)
  }

  return out
}

/** One recent file in the stat sweep: read it, it is gone, it is quiet for good (forget it), or leave it. */
export function sweepOne(p: string, row: FileRow, now: number): 'read' | 'gone' | 'forget' | 'keep' {
  const st = lstatOrNull(p)
  if (!st?.isFile()) return 'gone'
  let mtimeMs = Math.floor(st.mtimeMs)
  let size = st.size
  if (row.kind === 'sqlite') {
    const wal = statOrNull(`${p}-wal`)
    if (wal) {
      mtimeMs = Math.max(mtimeMs, Math.floor(wal.mtimeMs))
      size += wal.size
    }
  }

  if (row.dev !== st.dev || row.ino !== st.ino || row.size !== size || row.mtimeMs !== mtimeMs) return 'read'
  if (row.kind === 'jsonl' && row.offset < row.size && quietTail(row, now)) return 'read'
  if (mtimeMs < now - RECENT_MS && row.offset >= row.size) return 'forget'
  return 'keep'
}

function lstatOrNull(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file)
  } catch {
    return undefined
  }
}

export function statOrNull(file: string): fs.Stats | undefined {
  try {
    // A file gone since discovery is the common miss: no exception built for it.
    return fs.statSync(file, {throwIfNoEntry: false})
  } catch {
    return undefined
  }
}

/**
 * Can a pass skip this file without reading it (a no-op sync costs a stat)? True only
 * when reading it would surely yield nothing: a regular file whose mark (device, inode, size,
 * mtime) equals the store's, that is not a SQLite source (its mark includes the -wal file), not a
 * last line without its newline waiting to be tried, and whose holder (an agent process with the
 * file open) neither is nor was recorded. Anything else takes the full read path.
 */
export function unchangedFile(kind: string, st: fs.Stats | undefined, prev: FileRow | undefined, held: boolean, now: number): boolean {
  if (!st || !prev || kind === 'sqlite' || held || !st.isFile()) return false
  if (!sameStat(prev, st)) return false
  if (kind !== 'jsonl') return true
  return !quietTail(prev, now) && prev.holder === null
}
