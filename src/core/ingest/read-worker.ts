/**
 * The read worker: on a cold index of many bytes the engine shares the JSONL files with one
 * `node:worker_threads` worker running this module, and commits its results in order (engine.ts,
 * read-share.ts). Both ends of that exchange live here: `startReader` (the engine's, on its
 * thread) and `runWorker` (the worker's). Each file is claimed by one thread (a compare-and-swap
 * on a shared array, one slot per job), so the share follows how fast each thread goes. The
 * adapters are pure modules, so the worker finds them by agent name; it gets plain data in (path,
 * match, the previous files row, the open-handle holder) and posts `{job, reply}` per file it
 * claimed, read by jsonl-read.ts exactly as the engine reads it. On a recent-first pass the worker
 * first reads the tails of the files the pass leaves unread (tail-read.ts), newest first, until
 * they are done or the engine says stop, and posts each one that ends on an open ask.
 */
import fs from 'node:fs'
import {fileURLToPath} from 'node:url'
import {isMainThread, MessageChannel, type MessagePort, receiveMessageOnPort, Worker, workerData} from 'node:worker_threads'

import type {FileRow} from '../store/store.js'
import type {Adapter, Contribution, FileMatch} from './adapter.js'
import {type Pending, pendingOf} from './batch.js'
import {type ReadCounts, readJsonlFile} from './jsonl-read.js'
import {readTails, type TailJob} from './tail-read.js'

export {openRegular, readLines, readRegularFile} from './file-read.js'
export {type JsonlRead, QUIET_TAIL_MS, quietTail, type ReadCounts, readJsonlFile} from './jsonl-read.js'

/** One file for the worker: everything `readJsonlFile` needs, as plain data. */
export interface ReadJob {
  readonly agent: string
  readonly path: string
  readonly match: FileMatch & {kind: 'jsonl'}
  readonly prev: FileRow | undefined
  readonly holder: number | null
  readonly now: number
}

/**
 * What the worker posts per job it claimed (ok false: it could not read it; the engine does). The
 * contributions come as the JSON text the store keeps: a string is copied across threads whole,
 * where an object graph is serialised and rebuilt, and the committing thread stringifies nothing.
 */
export type ReadReply = {ok: true; result: Pending | null; counts: ReadCounts} | {ok: false}

/** One reply, with the job it answers. */
export interface ReadMessage {
  readonly job: number
  readonly reply: ReadReply
}

/** What the worker posts about the tails: one that ends on an open ask (by index), or that it stopped after `looked`. */
type TailMessage = {readonly tail: number; readonly contributions: Contribution[]} | {readonly tailsLooked: number}

/** The tails' asks the worker posted, by index into its tail jobs; `done` when it said it stopped. */
export interface TailReplies {
  readonly found: ReadonlyMap<number, Contribution[]>
  readonly done: boolean
}

/** A job's claim slot: not taken yet, or taken by the engine or by the worker. */
const FREE = 0
const ENGINE = 1
const WORKER = 2

/** A worker with no reply for this long is given up; the engine reads the rest itself. */
const STALL_MS = 30_000
/** After the engine says stop, how long it waits for the tail being read (a cold disk may take this long for one). */
const TAIL_GRACE_MS = 250
/** The shared signal: the worker's posts so far, and the engine's word that the tails stop. */
const POSTS = 0
const STOP_TAILS = 1

/** The engine's end of the read worker: the claims, and the worker's replies as they come. */
export interface Reader {
  /** Claim job `j` for the engine: true when it is the engine's to read (free, or the worker is gone). */
  claim(j: number): boolean
  /** The next reply, waiting for it; null when the worker is gone or stalled (the engine reads the file). */
  next(): ReadMessage | null
  /** The next reply if one came, without waiting. */
  poll(): ReadMessage | null
  /** The tails' asks: wait until the worker has read every tail or until `until` (epoch ms), then stop it. */
  tails(until: number): TailReplies
  stop(): void
}

/** Start the worker on `tails`, then `jobs` (null: it cannot run here, e.g. tests importing the .ts source). */
export function startReader(jobs: readonly ReadJob[], tails: readonly TailJob[] = []): Reader | null {
  // Only the built module can run as a worker (tests importing the .ts source read inline).
  const url = new URL('./read-worker.js', import.meta.url)
  if (url.protocol !== 'file:' || !fs.existsSync(fileURLToPath(url))) return null
  const {port1, port2} = new MessageChannel()
  const signal = new Int32Array(new SharedArrayBuffer(8))
  const claims = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, jobs.length)))
  let worker: Worker
  try {
    worker = new Worker(url, {transferList: [port2], workerData: {castReadWorker: true, claims, jobs, port: port2, signal, tails}})
  } catch {
    port1.close()
    return null
  }

  worker.on('error', () => {})
  worker.unref()
  let taken = 0
  let dead = false
  const stop = (): void => {
    dead = true
    port1.close()
    worker.terminate().catch(() => {})
  }

  const found = new Map<number, Contribution[]>()
  let tailsDone = tails.length === 0
  // Every post bumps the counter; the tails' posts are kept here, the reads' returned.
  const poll = (): ReadMessage | null => {
    while (!dead) {
      const m = receiveMessageOnPort(port1)
      if (!m) return null
      taken++
      const message = m.message as ReadMessage | TailMessage
      if ('job' in message) return message
      if ('tail' in message) found.set(message.tail, message.contributions)
      else tailsDone = true
    }

    return null
  }

  const waitTails = (until: number): void => {
    while (!dead && !tailsDone && Date.now() < until) {
      // A read's reply now is one the engine no longer waits for (its pass is read): dropped.
      if (poll() === null && !tailsDone) Atomics.wait(signal, POSTS, taken, Math.min(100, Math.max(1, until - Date.now())))
    }
  }

  return {
    claim: (j) => dead || Atomics.compareExchange(claims, j, FREE, ENGINE) === FREE,
    next() {
      const from = Date.now()
      while (!dead) {
        const m = poll()
        if (m) return m

        // The worker bumps the counter after each post: sleep while it has posted nothing new.
        Atomics.wait(signal, POSTS, taken, 100)
        if (Date.now() - from > STALL_MS) stop()
      }

      return null
    },
    poll,
    stop,
    tails(until) {
      waitTails(until)
      if (!tailsDone) {
        Atomics.store(signal, STOP_TAILS, 1)
        waitTails(Date.now() + TAIL_GRACE_MS)
      }

      return {done: tailsDone, found}
    },
  }
}

interface WorkerData {
  jobs: ReadJob[]
  tails: TailJob[]
  claims: Int32Array
  port: MessagePort
  signal: Int32Array
}

/**
 * The worker: claim each free job in order, read it and post one reply per claimed job on
 * `port`, bumping the shared counter after each so the engine, blocked in a synchronous sync(),
 * wakes (Atomics.wait). The port stays open (a close could drop replies not yet taken); the
 * engine terminates us.
 */
async function runWorker(data: WorkerData): Promise<void> {
  const {claims, jobs, port, signal, tails} = data
  const send = (message: ReadMessage | TailMessage): void => {
    port.postMessage(message)
    Atomics.add(signal, POSTS, 1)
    Atomics.notify(signal, POSTS)
  }

  const post = (job: number, reply: ReadReply): void => send({job, reply})

  let adapterFor: ((agent: string) => Adapter | undefined) | null = null
  try {
    ;({adapterFor} = await import('../../adapters/index.js'))
  } catch {
    // Without the adapters every reply says so, and the engine reads those files itself.
  }

  if (tails.length > 0) {
    const looked = readTails(
      tails,
      (agent) => adapterFor?.(agent),
      () => Atomics.load(signal, STOP_TAILS) === 0,
      (tail, contributions) => send({contributions, tail}),
    )
    send({tailsLooked: looked})
  }

  for (const [j, job] of jobs.entries()) {
    if (Atomics.compareExchange(claims, j, FREE, WORKER) !== FREE) continue
    const adapter = adapterFor?.(job.agent)
    if (!adapter) {
      post(j, {ok: false})
      continue
    }

    const counts: ReadCounts = {bytes: 0, lines: 0, parseErrors: 0, read: 0}
    try {
      post(j, {counts, ok: true, result: pendingOf(readJsonlFile(adapter, job.match, job.path, job.prev, job.holder, job.now, counts))})
    } catch {
      post(j, {ok: false})
    }
  }
}

if (!isMainThread && (workerData as {castReadWorker?: boolean} | null)?.castReadWorker) {
  void runWorker(workerData as WorkerData)
}
