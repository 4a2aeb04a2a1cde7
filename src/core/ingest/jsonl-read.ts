/**
 * Reading one append-only JSONL file (offset + resumable parser state), shared by the engine and
 * by the read worker (read-worker.ts). Each line is read and parsed once (jsonl-line.ts); a
 * malformed line is skipped and counted once, in the files row (`parseErrors`, resumed across
 * reads), which is also the file's first contribution's `facts.parseErrors`.
 *
 * The row keeps the adapter's parser state (`state`, the adapter's alone) and, beside it, this
 * reader's own marks: the process holding the file open (`holder`), the quiet tail tried
 * (`tailTried`) and the print of the bytes before the offset (`fp`). Stores written before the
 * marks had their columns kept them inside the state as `__holder`, `__tail` and `__fp`: migration
 * 9 moves them out, and `parserState` still drops them from a state that carries them.
 */
import fs from 'node:fs'

import type {FileRow} from '../store/store.js'
import type {Adapter, Contribution, FileMatch, LineParser} from './adapter.js'
import {openRegular, readLines, tailPrint} from './file-read.js'
import {feedParsed, parseJsonLine, type ParsedLine, withParseErrors} from './jsonl-line.js'
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

type JsonlMatch = FileMatch & {kind: 'jsonl'}
type RowBase = Omit<FileRow, 'offset' | 'parseErrors' | 'state' | 'holder' | 'tailTried' | 'fp'>

/** The reader's marks as stores before migration 9 kept them inside the parser state. */
const LEGACY_MARKS = ['__holder', '__tail', '__fp'] as const

/** A stored parser state, without the reader's marks an older store may have left inside it. */
function parserState(text: string): Record<string, unknown> {
  const state = JSON.parse(text) as Record<string, unknown>
  for (const k of LEGACY_MARKS) delete state[k]
  return state
}

/**
 * A last line without its newline is read once the file has been this quiet and the line is a
 * whole JSON value (an agent may leave its last line so); a line still being written waits.
 */
export const QUIET_TAIL_MS = 3000
/** A tail longer than this is never taken for a finished line. */
const MAX_TAIL = 4 * 1024 * 1024
/** A line parse stands in for a free-text parser's lines (it gets the text, never a record). */
const UNPARSED: ParsedLine = {kind: 'blank'}

/** Does this files row end in a last line without its newline that has been quiet long enough (and not tried yet)? */
export function quietTail(row: Pick<FileRow, 'offset' | 'size' | 'mtimeMs' | 'tailTried'>, now = Date.now()): boolean {
  if (row.offset >= row.size || now - row.mtimeMs < QUIET_TAIL_MS || row.size - row.offset > MAX_TAIL) return false
  return row.tailTried !== row.size
}

/**
 * Stat a JSONL file and read what changed since `prev`: null when nothing did (or it is gone).
 * Unchanged bytes with a new holder of the file yield new contributions without a read.
 */
export function readJsonlFile(
  adapter: Adapter,
  match: JsonlMatch,
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
  if (same && !quietTail(prev, Date.now())) return holderChange(adapter, match, file, prev, holder, now)
  const base: RowBase = {agent: adapter.agent, dev: st.dev, ino: st.ino, kind: match.kind, mtimeMs, path: file, readAt: now, size}
  counts.read++
  try {
    return readJsonl(adapter, match, file, prev, st, base, holder, counts)
  } catch {
    return null
  }
}

/** Unchanged bytes: only the process holding the file open may have changed (null: it did not). */
function holderChange(
  adapter: Adapter,
  match: JsonlMatch,
  file: string,
  prev: FileRow,
  holder: number | null,
  now: number,
): JsonlRead | null {
  if (!adapter.jsonl || !adapter.openFileProcesses || !prev.state) return null
  const before = prev.holder
  // Nobody holds it, now or before: nothing to learn, and the state is not parsed (a no-op
  // sync over thousands of rollouts would parse every one's state).
  if (before === holder) return null
  const state = parserState(prev.state)
  const contributions = jsonlContributions(adapter, match, file, state, prev.parseErrors, holder, before)
  return {contributions, row: {...prev, holder, readAt: now, state: JSON.stringify(state)}}
}

/** Where a read starts: the stored state and offset when the same file grew, else the beginning. */
function startOf(
  parser: LineParser<unknown>,
  match: JsonlMatch,
  file: string,
  prev: FileRow | undefined,
  st: fs.Stats,
): {state: Record<string, unknown>; offset: number; parseErrors: number; holder: number | null} {
  // Same file grown: resume. Replaced or shrunk: start over.
  let resume = prev && prev.dev === st.dev && prev.ino === st.ino && st.size >= prev.offset && prev.state !== null
  // A file rewritten in place (same inode, e.g. a migration to a new format) must not be resumed
  // mid-line: the bytes just before the stored offset must still be the ones read last time.
  if (resume && prev!.offset > 0) {
    const {fp} = prev!
    if (fp !== null && fp !== tailPrint(file, prev!.offset)) resume = false
  }

  if (resume && parser.lines !== 'text' && parser.resumes?.(prev!.state!) === false) resume = false
  if (resume && prev) return {holder: prev.holder, offset: prev.offset, parseErrors: prev.parseErrors, state: parserState(prev.state!)}
  return {holder: null, offset: 0, parseErrors: 0, state: parser.init(file, match) as Record<string, unknown>}
}

function readJsonl(
  adapter: Adapter,
  match: JsonlMatch,
  file: string,
  prev: FileRow | undefined,
  st: fs.Stats,
  base: RowBase,
  holder: number | null,
  counts: ReadCounts,
): JsonlRead {
  const parser = adapter.jsonl
  if (!parser)
    return {contributions: [], row: {...base, fp: null, holder: null, offset: st.size, parseErrors: 0, state: null, tailTried: null}}
  const start = startOf(parser, match, file, prev, st)
  const {state} = start
  const before = start.holder
  const opened = openRegular(file)
  if (!opened) throw new Error(`not a regular file: ${file}`)
  let read: {offset: number; errors: number; tailTried: number | undefined}
  try {
    read = feedFrom(parser, state, opened.fd, start.offset, st, counts)
  } finally {
    fs.closeSync(opened.fd)
  }

  const {offset} = read
  const parseErrors = start.parseErrors + read.errors
  const contributions = jsonlContributions(adapter, match, file, state, parseErrors, holder, before)
  const fp = offset > 0 ? tailPrint(file, offset) : null
  const marks = {fp, holder, tailTried: read.tailTried ?? null}
  return {contributions, row: {...base, ...marks, offset, parseErrors, state: JSON.stringify(state)}}
}

/**
 * Feed every complete line from `from` to the parser, each parsed once, then a quiet last line
 * without its newline when it is a whole JSON value. Returns where the next read starts, the
 * malformed lines met (oversize ones included) and the tail tried and left, if any.
 */
function feedFrom(
  parser: LineParser<unknown>,
  state: Record<string, unknown>,
  fd: number,
  from: number,
  st: fs.Stats,
  counts: ReadCounts,
): {offset: number; errors: number; tailTried: number | undefined} {
  const json = parser.lines !== 'text'
  let errors = 0
  const r = readLines(fd, from, st.size, (text, at) => {
    counts.lines++
    if (!feedParsed(parser, state, json ? parseJsonLine(text) : UNPARSED, text, at)) errors++
  })
  counts.bytes += r.offset - from
  errors += r.oversize
  let offset = r.offset
  let tailTried: number | undefined
  // A last line without its newline, quiet for QUIET_TAIL_MS: read it when it is a whole JSON
  // value (a line still being written never is); else leave it, and do not try it again until
  // the file changes.
  if (offset < st.size && quietTail({mtimeMs: Math.floor(st.mtimeMs), offset, size: st.size, tailTried: null}, Date.now())) {
    const buf = Buffer.alloc(st.size - offset)
    const n = fs.readSync(fd, buf, 0, buf.length, offset)
    const text = buf.toString('utf8', 0, n).replace(/\r$/, '')
    const parsed = parseJsonLine(text)
    const whole = n === buf.length && (parsed.kind === 'record' || parsed.kind === 'not-object')
    if (whole) {
      counts.lines++
      if (!feedParsed(parser, state, json ? parsed : UNPARSED, text, offset)) errors++
      counts.bytes += n
      offset = st.size
    } else {
      tailTried = st.size
    }
  }

  counts.parseErrors += errors
  return {errors, offset, tailTried}
}

/**
 * The parser's contributions, with the file's malformed lines on the first (a JSON log's; a free-
 * text log has none of its own) and a process claim when an agent process holds the file open.
 */
function jsonlContributions(
  adapter: Adapter,
  match: JsonlMatch,
  file: string,
  state: Record<string, unknown>,
  parseErrors: number,
  holder: number | null,
  before: number | null,
): Contribution[] {
  const parser = adapter.jsonl!
  const own = parser.contributions({...state}, file, match)
  const list = parser.lines === 'text' ? own : withParseErrors(own, parseErrors)
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
