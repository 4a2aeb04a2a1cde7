/**
 * Reading one append-only JSONL file (offset + resumable parser state), shared by the engine and
 * by the read worker: on a cold index of many bytes the engine hands part of the files to one
 * `node:worker_threads` worker running this module, and commits its results in order (engine.ts).
 * The adapters are pure modules, so the worker finds them by agent name; it gets plain data in
 * (path, match, the previous files row, the open-handle holder) and posts `{row, contributions}`.
 */
import fs from 'node:fs'
import {isMainThread, type MessagePort, workerData} from 'node:worker_threads'

import type {FileRow} from '../store/store.js'
import type {Adapter, Contribution, FileMatch} from './adapter.js'
import {processStartTime} from './process-table.js'

export interface ReadCounts {
  read: number
  bytes: number
  lines: number
  parseErrors: number
}

export interface JsonlRead {
  readonly row: FileRow
  readonly contributions: readonly Contribution[]
}

/** One file for the worker: everything `readJsonlFile` needs, as plain data. */
export interface ReadJob {
  readonly agent: string
  readonly path: string
  readonly match: FileMatch & {kind: 'jsonl'}
  readonly prev: FileRow | undefined
  readonly holder: number | null
  readonly now: number
}

/** What the worker posts per job, in job order. */
export type ReadReply = {ok: true; result: JsonlRead | null; counts: ReadCounts} | {ok: false}

const CHUNK = 1 << 20
/** A single line longer than this is skipped and counted, never buffered whole. */
const MAX_LINE = 64 * 1024 * 1024
/**
 * A last line without its newline is read once the file has been this quiet and the line is a
 * whole JSON value (an agent may leave its last line so); a line still being written waits.
 */
export const QUIET_TAIL_MS = 3000
/** A tail longer than this is never taken for a finished line. */
const MAX_TAIL = 4 * 1024 * 1024
/** Opened without following a symlink and without blocking on a FIFO or a device. */
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0)

/** Does this files row end in a last line without its newline that has been quiet long enough (and not tried yet)? */
export function quietTail(row: Pick<FileRow, 'offset' | 'size' | 'mtimeMs' | 'state'>, now = Date.now()): boolean {
  if (row.offset >= row.size || now - row.mtimeMs < QUIET_TAIL_MS || row.size - row.offset > MAX_TAIL) return false
  return !(row.state ?? '').includes(`"__tail":${row.size}`)
}

/** Open a file to read: a regular file only, never through a symlink, never blocking. */
export function openRegular(file: string): {fd: number; st: fs.Stats} | null {
  let fd: number
  try {
    fd = fs.openSync(file, OPEN_FLAGS)
  } catch {
    return null
  }

  try {
    const st = fs.fstatSync(fd)
    if (st.isFile()) return {fd, st}
  } catch {
    // fall through
  }

  fs.closeSync(fd)
  return null
}

/** A whole file's text, read as a regular file only (null: not one, or gone). */
export function readRegularFile(file: string): string | null {
  const f = openRegular(file)
  if (!f) return null
  try {
    return fs.readFileSync(f.fd, 'utf8')
  } finally {
    fs.closeSync(f.fd)
  }
}

/**
 * Stat a JSONL file and read what changed since `prev`: null when nothing did (or it is gone).
 * Unchanged bytes with a new holder of the file yield new contributions without a read.
 */
export function readJsonlFile(
  adapter: Adapter,
  match: FileMatch & {kind: 'jsonl'},
  file: string,
  prev: FileRow | undefined,
  holder: number | null,
  now: number,
  counts: ReadCounts,
  pre?: fs.Stats,
): JsonlRead | null {
  let st: fs.Stats
  try {
    st = pre ?? fs.statSync(file)
  } catch {
    return null
  }

  if (!st.isFile()) return null
  const mtimeMs = Math.floor(st.mtimeMs)
  const size = st.size
  const same = prev && prev.dev === st.dev && prev.ino === st.ino && prev.size === size && prev.mtimeMs === mtimeMs
  if (same && !quietTail(prev, Date.now())) {
    // Unchanged bytes; only the process holding it open may have changed.
    if (adapter.jsonl && adapter.openFileProcesses && prev.state) {
      const heldBefore = prev.state.includes('"__holder":')
      // Nobody holds it, now or before: nothing to learn, and the state is not parsed (a no-op
      // sync over thousands of rollouts would parse every one's state).
      if (!heldBefore && holder === null) return null
      const state = JSON.parse(prev.state) as Record<string, unknown>
      const before = (state.__holder as number | undefined) ?? null
      if (before === holder) return null
      const contributions = jsonlContributions(adapter, match, file, state, holder, before)
      const nextState = {...state, __holder: holder ?? undefined}
      return {contributions, row: {...prev, readAt: now, state: JSON.stringify(nextState)}}
    }

    return null
  }

  const base: Omit<FileRow, 'offset' | 'parseErrors' | 'state'> = {
    agent: adapter.agent,
    dev: st.dev,
    ino: st.ino,
    kind: match.kind,
    mtimeMs,
    path: file,
    readAt: now,
    size,
  }
  counts.read++
  try {
    return readJsonl(adapter, match, file, prev, st, base, holder, counts)
  } catch {
    return null
  }
}

function readJsonl(
  adapter: Adapter,
  match: FileMatch & {kind: 'jsonl'},
  file: string,
  prev: FileRow | undefined,
  st: fs.Stats,
  base: Omit<FileRow, 'offset' | 'parseErrors' | 'state'>,
  holder: number | null,
  counts: ReadCounts,
): JsonlRead {
  const parser = adapter.jsonl
  if (!parser) return {contributions: [], row: {...base, offset: st.size, parseErrors: 0, state: null}}
  // Same file grown: resume. Replaced or shrunk: start over.
  let resume = prev && prev.dev === st.dev && prev.ino === st.ino && st.size >= prev.offset && prev.state !== null
  // A file rewritten in place (same inode, e.g. a migration to a new format) must not be resumed
  // mid-line: the bytes just before the stored offset must still be the ones read last time.
  if (resume && prev!.offset > 0) {
    const fp = (JSON.parse(prev!.state!) as {__fp?: string}).__fp
    if (fp !== undefined && fp !== tailPrint(file, prev!.offset)) resume = false
  }

  let state: Record<string, unknown>
  let offset: number
  let parseErrors: number
  if (resume && prev) {
    state = JSON.parse(prev.state!) as Record<string, unknown>
    offset = prev.offset
    parseErrors = prev.parseErrors
  } else {
    state = parser.init(file, match) as Record<string, unknown>
    offset = 0
    parseErrors = 0
  }

  const before = (state.__holder as number | undefined) ?? null
  delete state.__holder
  delete state.__tail
  const opened = openRegular(file)
  if (!opened) throw new Error(`not a regular file: ${file}`)
  const fd = opened.fd
  let tailTried: number | undefined
  try {
    const r = readLines(fd, offset, st.size, (text, at) => {
      counts.lines++
      let ok: boolean
      try {
        ok = parser.line(state, text, at)
      } catch {
        ok = false
      }

      if (!ok) {
        parseErrors++
        counts.parseErrors++
      }
    })
    counts.bytes += r.offset - offset
    parseErrors += r.oversize
    counts.parseErrors += r.oversize
    offset = r.offset
    // A last line without its newline, quiet for QUIET_TAIL_MS: read it when it is a whole JSON
    // value (a line still being written never is); else leave it, and do not try it again until
    // the file changes.
    if (offset < st.size && quietTail({mtimeMs: Math.floor(st.mtimeMs), offset, size: st.size, state: null}, Date.now())) {
      const buf = Buffer.alloc(st.size - offset)
      const n = fs.readSync(fd, buf, 0, buf.length, offset)
      const text = buf.toString('utf8', 0, n).replace(/\r$/, '')
      let whole = false
      try {
        JSON.parse(text)
        whole = n === buf.length && text.trim() !== ''
      } catch {
        whole = false
      }

      if (whole) {
        counts.lines++
        let ok: boolean
        try {
          ok = parser.line(state, text, offset)
        } catch {
          ok = false
        }

        if (!ok) {
          parseErrors++
          counts.parseErrors++
        }

        counts.bytes += n
        offset = st.size
      } else {
        tailTried = st.size
      }
    }
  } finally {
    fs.closeSync(fd)
  }

  delete state.__fp
  const contributions = jsonlContributions(adapter, match, file, state, holder, before)
  const fp = offset > 0 ? tailPrint(file, offset) : undefined
  const saved = {...state, __fp: fp, __holder: holder ?? undefined, __tail: tailTried}
  return {contributions, row: {...base, offset, parseErrors, state: JSON.stringify(saved)}}
}

/** The parser's contributions, with a process claim when an agent process holds the file open. */
function jsonlContributions(
  adapter: Adapter,
  match: FileMatch & {kind: 'jsonl'},
  file: string,
  state: Record<string, unknown>,
  holder: number | null,
  before: number | null,
): Contribution[] {
  const clean = {...state}
  delete clean.__holder
  delete clean.__fp
  delete clean.__tail
  const list = adapter.jsonl!.contributions(clean, file, match)
  const pid = holder ?? before
  if (pid === null) return list
  return list.map((c, i) => {
    if (i !== 0 || c.processClaim) return c
    // The holder exited: a settled session simply ended; an unsettled one crashed mid-turn.
    if (holder === null && c.facts.settled !== false) return c
    return {
      ...c,
      processClaim: {
        heartbeatAt: null,
        pid,
        source: {kind: 'process', ref: `/proc/${pid}/fd`},
        startedAt: holder === null ? null : processStartTime(pid),
        status: null,
      },
    }
  })
}

/** Up to 32 bytes just before `offset`, hex: where an incremental read resumes. */
function tailPrint(file: string, offset: number): string {
  const n = Math.min(32, offset)
  const buf = Buffer.alloc(n)
  const fd = fs.openSync(file, OPEN_FLAGS)
  try {
    fs.readSync(fd, buf, 0, n, offset - n)
  } finally {
    fs.closeSync(fd)
  }

  return buf.toString('hex')
}

/**
 * Read complete lines from `start` to `end`. A partial last line is left for the next read: the
 * returned offset is where it starts. Lines over MAX_LINE are skipped and counted.
 */
export function readLines(
  fd: number,
  start: number,
  end: number,
  onLine: (text: string, offset: number) => void,
  maxLine = MAX_LINE,
): {offset: number; oversize: number} {
  const buf = Buffer.allocUnsafe(CHUNK)
  let pos = start
  let carry: Buffer | null = null
  let carryStart = start
  // Set while skipping an oversize line: where it started.
  let skipFrom: number | null = null
  let oversize = 0
  while (pos < end) {
    const n = fs.readSync(fd, buf, 0, Math.min(CHUNK, end - pos), pos)
    if (n <= 0) break
    let chunk: Buffer = buf.subarray(0, n)
    let base = pos
    if (carry) {
      chunk = Buffer.concat([carry, chunk])
      base = carryStart
      carry = null
    }

    pos += n
    let s = 0
    for (;;) {
      const nl = chunk.indexOf(10, s)
      if (nl === -1) break
      if (skipFrom === null) {
        let e = nl
        if (e > s && chunk[e - 1] === 13) e--
        if (e > s) onLine(chunk.toString('utf8', s, e), base + s)
      } else {
        oversize++
        skipFrom = null
      }

      s = nl + 1
    }

    if (s < chunk.length && skipFrom === null) {
      if (chunk.length - s > maxLine) {
        skipFrom = base + s
      } else {
        carry = Buffer.from(chunk.subarray(s))
        carryStart = base + s
      }
    }
  }

  // A partial last line (or an unfinished oversize one) waits for its newline.
  if (skipFrom !== null) return {offset: skipFrom, oversize}
  return {offset: carry ? carryStart : pos, oversize}
}

/**
 * The worker: read each job in order and post one reply per job on `port`, bumping the shared
 * counter after each so the engine, blocked in a synchronous sync(), wakes (Atomics.wait).
 * The port stays open (a close could drop replies not yet taken); the engine terminates us.
 */
async function runWorker(data: {jobs: ReadJob[]; port: MessagePort; signal: Int32Array}): Promise<void> {
  const {jobs, port, signal} = data
  const post = (reply: ReadReply): void => {
    port.postMessage(reply)
    Atomics.add(signal, 0, 1)
    Atomics.notify(signal, 0)
  }

  let adapterFor: ((agent: string) => Adapter | undefined) | null = null
  try {
    ;({adapterFor} = await import('../../adapters/index.js'))
  } catch {
    // Without the adapters every reply says so, and the engine reads those files itself.
  }

  for (const job of jobs) {
    const adapter = adapterFor?.(job.agent)
    if (!adapter) {
      post({ok: false})
      continue
    }

    const counts: ReadCounts = {bytes: 0, lines: 0, parseErrors: 0, read: 0}
    try {
      post({counts, ok: true, result: readJsonlFile(adapter, job.match, job.path, job.prev, job.holder, job.now, counts)})
    } catch {
      post({ok: false})
    }
  }
}

if (!isMainThread && (workerData as {castReadWorker?: boolean} | null)?.castReadWorker) {
  void runWorker(workerData as {jobs: ReadJob[]; port: MessagePort; signal: Int32Array})
}
