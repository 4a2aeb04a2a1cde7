/**
 * A cold index shared with the read worker (read-share.ts): both threads claim the files as they
 * go, and the engine takes every file's read in its turn, exactly once, whichever thread read it:
 * while the worker holds the file it must commit next, it reads the next free ones itself; a file
 * the worker gives back, or still holds when it dies, is read by the engine.
 * The worker here is a stand-in with the real Reader contract (claims, replies by job).
 */
import {describe, expect, it} from 'vitest'

import type {Pending} from '../../../src/core/ingest/batch.js'
import {type ReadSelf, SharedReads} from '../../../src/core/ingest/read-share.js'
import type {Reader, ReadMessage} from '../../../src/core/ingest/read-worker.js'

const read = (by: string, file: number): Pending => ({
  contributions: [],
  row: {
    agent: 'a',
    dev: 1,
    ino: file,
    kind: 'jsonl',
    mtimeMs: 0,
    offset: 1,
    parseErrors: 0,
    path: `${by}:${file}`,
    readAt: 0,
    size: 1,
    state: null,
    holder: null,
    tailTried: null,
    fp: null,
  },
})

/**
 * A worker over `files` (the pass's indexes of the shared files): `run(n)` claims and reads its
 * next n free jobs; `giveBack` jobs come back unread; past `dieAfter` replies it claims on but
 * never replies again, and the engine waiting for one finds it gone (as after a stall).
 */
function fakeWorker(files: readonly number[], opts: {giveBack?: number[]; dieAfter?: number} = {}) {
  const claims = files.map(() => 0)
  const queue: ReadMessage[] = []
  let replies = 0
  let dead = false
  const run = (n: number): void => {
    for (let j = 0; j < claims.length && n > 0; j++) {
      if (claims[j] !== 0) continue
      claims[j] = 2
      n--
      if (opts.dieAfter !== undefined && replies >= opts.dieAfter) continue
      replies++
      queue.push(
        opts.giveBack?.includes(j)
          ? {job: j, reply: {ok: false}}
          : {job: j, reply: {counts: {bytes: 1, lines: 1, parseErrors: 0, read: 1}, ok: true, result: read('worker', files[j]!)}},
      )
    }
  }

  const reader: Reader = {
    claim: (j) => dead || (claims[j] === 0 && (claims[j] = 1) === 1),
    next() {
      if (dead) return null
      if (queue.length === 0) run(1)
      if (queue.length === 0) dead = true
      return queue.shift() ?? null
    },
    poll: () => (dead ? null : (queue.shift() ?? null)),
    stop() {
      dead = true
    },
    tails: () => ({done: true, found: new Map()}),
  }
  return {claims, reader, run}
}

/** Take every file of a pass of `n` files (every other one shared) in order, as the engine does. */
function takeAll(n: number, shared: SharedReads, onRead: (i: number) => void): {path: string; counted: boolean}[] {
  const readSelf: ReadSelf = (i) => {
    onRead(i)
    return read('engine', i)
  }

  const out: {path: string; counted: boolean}[] = []
  for (let i = 0; i < n; i++) {
    if (!shared.has(i)) continue
    const got = shared.take(i, readSelf)
    out.push({counted: got.counts !== undefined, path: got.result!.row.path})
  }

  return out
}

describe('sharing a cold index with the read worker', () => {
  const files = [0, 2, 4, 6, 8, 10, 12, 14]
  const jobOf = new Map(files.map((i, j) => [i, j]))

  it('takes every shared file once, in its turn, read by the worker or by the engine', () => {
    const w = fakeWorker(files)
    w.run(3) // the worker is ahead: it holds the first three files
    const engineRead: number[] = []
    const got = takeAll(16, new SharedReads(jobOf, files, w.reader), (i) => engineRead.push(i))
    expect(got.map((g) => Number(g.path.split(':')[1]))).toEqual(files)
    // The worker's reads carry their counts; the engine counts its own as it reads.
    for (const g of got) expect(g.counted).toBe(g.path.startsWith('worker:'))
    expect(got.slice(0, 3).every((g) => g.path.startsWith('worker:'))).toBe(true)
    expect(new Set(engineRead).size).toBe(engineRead.length)
    expect(engineRead.length + got.filter((g) => g.path.startsWith('worker:')).length).toBe(files.length)
  })

  it('reads the next free files while the worker holds the one to commit next', () => {
    const w = fakeWorker(files)
    const shared = new SharedReads(jobOf, files, w.reader)
    w.run(1) // the worker holds file 0; its reply comes in while the engine reads file 2
    const reply = w.reader.poll()
    const engineRead: number[] = []
    let polls = 0
    w.reader.poll = () => (polls++ === 1 ? reply : null)
    const first = shared.take(0, (i) => {
      engineRead.push(i)
      return read('engine', i)
    })
    expect(first.result!.row.path).toBe('worker:0')
    expect(engineRead).toEqual([2])
    // File 2's read waits for its turn, and is not read again.
    expect(shared.take(2, () => read('again', 2)).result!.row.path).toBe('engine:2')
  })

  it('reads a file the worker gave back, and every file it held when it died', () => {
    for (const opts of [{giveBack: [1, 4]}, {dieAfter: 2}]) {
      const w = fakeWorker(files, opts)
      w.run(6)
      const got = takeAll(16, new SharedReads(jobOf, files, w.reader), () => {})
      expect(got.map((g) => Number(g.path.split(':')[1]))).toEqual(files)
      if (opts.giveBack) for (const j of opts.giveBack) expect(got[j]!.path).toBe(`engine:${files[j]}`)
      else expect(got.map((g) => g.path.split(':')[0])).toEqual(['worker', 'worker', ...files.slice(2).map(() => 'engine')])
    }
  })
})
