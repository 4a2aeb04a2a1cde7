/**
 * When a sync has many JSONL bytes to read, the engine shares them with one read worker
 * (read-worker.ts), on the other core. The share is not fixed in advance: both threads claim the
 * files to read one at a time, in discovery order (a shared claim per file), so neither waits for
 * the other while files remain, however busy the machine keeps either core. The engine still
 * commits every read on its own thread and in discovery order: a read it takes before its turn
 * (while the file it must commit next is still on the worker) waits here for its turn. On a
 * recent-first pass the worker first reads the tails of the files the pass leaves unread
 * (tail-ask.ts), while the engine reads the recent ones.
 */
import type fs from 'node:fs'

import type {FileRow} from '../store/store.js'
import type {FileMatch} from './adapter.js'
import type {Discovered} from './discover.js'
import type {Pending} from './batch.js'
import type {ReadCounts} from './jsonl-read.js'
import {type Reader, type ReadJob, startReader} from './read-worker.js'
import {sameStat} from './same-stat.js'
import {TAIL_BUDGET_MS, type TailAsk, tailAsksOf, type TailFile} from './tail-ask.js'

/** JSONL bytes to read above which a sync shares the reading with a worker thread. */
const PARALLEL_BYTES = 32 * 1024 * 1024
/** Tails to read above which a recent-first pass reads them on a worker thread even with few recent bytes. */
const PARALLEL_TAILS = 1000

/** A shared file's read: by the worker (with its counts), or by the engine (counted already). */
export type SharedRead = {readonly result: Pending | null; readonly counts?: ReadCounts}

/** The engine's read of one file of the pass (by its index in the pass), counting into the pass. */
export type ReadSelf = (i: number) => Pending | null

/** The files of one pass shared with the worker: which ones, and their reads as they come. */
export class SharedReads {
  /** Reads taken before their turn (by either thread), by job index. */
  private readonly ready = new Map<number, SharedRead>()
  /** Jobs the worker claimed and gave back (it could not read them): read here in their turn. */
  private readonly failed = new Set<number>()
  /** The next job the engine may take ahead of its turn. */
  private ahead = 0

  constructor(
    private readonly jobOf: ReadonlyMap<number, number>,
    private readonly fileOf: readonly number[],
    private readonly reader: Reader,
    private readonly tails: readonly TailFile[] = [],
  ) {}

  /** When the worker started: its tails have TAIL_BUDGET_MS from then, or as long as the recent files take. */
  private readonly started = Date.now()

  /** The tails that end on an open ask, once the worker has read them all or their time is up. */
  tailAsks(): TailAsk[] {
    if (this.tails.length === 0) return []
    return tailAsksOf(this.tails, this.reader.tails(this.started + TAIL_BUDGET_MS).found)
  }

  /** Is file `i` of the pass one of the shared files? */
  has(i: number): boolean {
    return this.jobOf.has(i)
  }

  /**
   * File `i`'s read, in its turn: the worker's when it claimed the file (waiting for it, and
   * meanwhile reading the next unclaimed files here), else read here by `readSelf`.
   */
  take(i: number, readSelf: ReadSelf): SharedRead {
    const j = this.jobOf.get(i)!
    for (;;) {
      const got = this.ready.get(j)
      if (got) {
        this.ready.delete(j)
        return got
      }

      // Unclaimed, given back, or the worker is gone: this thread reads it.
      if (this.failed.has(j) || this.reader.claim(j)) return {result: readSelf(i)}
      if (this.drain(false)) continue
      // The worker has it: read the next unclaimed file meanwhile, else wait for a reply.
      const k = this.nextFree(j)
      if (k !== null) this.ready.set(k, {result: readSelf(this.fileOf[k]!)})
      else if (!this.drain(true)) return {result: readSelf(i)} // the worker is gone or stalled
    }
  }

  stop(): void {
    this.reader.stop()
  }

  /** The worker's replies received so far, kept by job (block: wait for one). False when none came. */
  private drain(block: boolean): boolean {
    let any = false
    for (;;) {
      const m = block && !any ? this.reader.next() : this.reader.poll()
      if (!m) return any
      any = true
      if (m.reply.ok) this.ready.set(m.job, {counts: m.reply.counts, result: m.reply.result})
      else this.failed.add(m.job)
    }
  }

  /** Claim the first unclaimed job after `j` for this thread (null: none is left). */
  private nextFree(j: number): number | null {
    this.ahead = Math.max(this.ahead, j + 1)
    while (this.ahead < this.fileOf.length) {
      const k = this.ahead++
      if (this.reader.claim(k)) return k
    }

    return null
  }
}

/**
 * When the JSONL bytes to read pass PARALLEL_BYTES, start one read worker over the files to read
 * (both threads then claim them as they go); with `tails` (a recent-first pass), the worker reads
 * them first, and starts for them alone past PARALLEL_TAILS. Null for a small sync.
 */
export function shareReads(
  found: readonly Discovered[],
  sts: readonly (fs.Stats | undefined)[],
  known: ReadonlyMap<string, FileRow>,
  holders: ReadonlyMap<string, number>,
  now: number,
  tails: readonly TailFile[] = [],
): SharedReads | null {
  const todo: number[] = []
  let total = 0
  for (const [i, d] of found.entries()) {
    const st = sts[i]
    if (d.match.kind !== 'jsonl' || !d.adapter.jsonl || !st?.isFile()) continue
    const prev = known.get(d.path)
    if (sameStat(prev, st)) continue
    total += prev && prev.dev === st.dev && prev.ino === st.ino && st.size >= prev.offset ? st.size - prev.offset : st.size
    todo.push(i)
  }

  if (total < PARALLEL_BYTES || todo.length < 2) todo.length = 0
  if (todo.length === 0 && tails.length < PARALLEL_TAILS) return null
  const jobs: ReadJob[] = todo.map((i) => {
    const d = found[i]!
    return {
      agent: d.adapter.agent,
      holder: holders.get(d.path) ?? null,
      match: d.match as FileMatch & {kind: 'jsonl'},
      now,
      path: d.path,
      prev: known.get(d.path),
    }
  })
  const reader = startReader(
    jobs,
    tails.map((t) => t.job),
  )
  return reader ? new SharedReads(new Map(todo.map((i, j) => [i, j])), todo, reader, tails) : null
}
