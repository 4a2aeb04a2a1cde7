/**
 * When a sync has many JSONL bytes to read, the engine shares them with one read worker
 * (read-worker.ts): this picks the worker's files.
 */
import type fs from 'node:fs'

import type {FileRow} from '../store/store.js'
import type {FileMatch} from './adapter.js'
import type {Discovered} from './discover.js'
import {type Reader, type ReadJob, startReader} from './read-worker.js'

/** JSONL bytes to read above which a sync shares the reading with a worker thread. */
const PARALLEL_BYTES = 32 * 1024 * 1024
/** The worker's share of those bytes (the engine also commits every batch). */
const WORKER_SHARE = 0.75

/**
 * When the JSONL bytes to read pass PARALLEL_BYTES, start one read worker and give it about
 * WORKER_SHARE of those bytes, file by file in discovery order; null for a small sync.
 */
export function shareReads(
  found: readonly Discovered[],
  sts: readonly (fs.Stats | undefined)[],
  known: ReadonlyMap<string, FileRow>,
  holders: ReadonlyMap<string, number>,
  now: number,
): {toWorker: Set<number>; reader: Reader} | null {
  const todo: {i: number; bytes: number}[] = []
  let total = 0
  for (const [i, d] of found.entries()) {
    const st = sts[i]
    if (d.match.kind !== 'jsonl' || !d.adapter.jsonl || !st?.isFile()) continue
    const prev = known.get(d.path)
    if (prev && prev.dev === st.dev && prev.ino === st.ino && prev.size === st.size && prev.mtimeMs === Math.floor(st.mtimeMs)) continue
    const bytes = prev && prev.dev === st.dev && prev.ino === st.ino && st.size >= prev.offset ? st.size - prev.offset : st.size
    todo.push({bytes, i})
    total += bytes
  }

  if (total < PARALLEL_BYTES || todo.length < 2) return null
  const toWorker = new Set<number>()
  const jobs: ReadJob[] = []
  let given = 0
  let seen = 0
  for (const {bytes, i} of todo) {
    if (given < WORKER_SHARE * seen) {
      const d = found[i]!
      toWorker.add(i)
      jobs.push({
        agent: d.adapter.agent,
        holder: holders.get(d.path) ?? null,
        match: d.match as FileMatch & {kind: 'jsonl'},
        now,
        path: d.path,
        prev: known.get(d.path),
      })
      given += bytes
    }

    seen += bytes
  }

  const reader = startReader(jobs)
  return reader ? {reader, toWorker} : null
}
