/**
 * The files table without the parsers' states: a no-op sync compares each
 * file's stat with its mark and needs a state only for the few files it reads, so it does not
 * carry every file's resumable parser state (kilobytes each) into memory.
 */
import {num, str} from './rows.js'
import type {FileRow, Store} from './store.js'

/** A files row whose state is loaded only on demand; `held`: a holder process is recorded for it. */
export type FileMarkRow = FileRow & {readonly held: boolean; readonly stateLoaded: boolean}

const toRow = (r: Record<string, unknown>, state: string | null, stateLoaded: boolean): FileMarkRow => ({
  agent: String(r.agent),
  dev: Number(r.dev),
  held: Number(r.held ?? 0) > 0,
  ino: Number(r.ino),
  kind: String(r.kind),
  mtimeMs: Number(r.mtime_ms),
  offset: Number(r.offset),
  parseErrors: Number(r.parse_errors),
  path: String(r.path),
  readAt: Number(r.read_at),
  size: Number(r.size),
  state,
  stateLoaded,
  holder: num(r.holder),
  tailTried: num(r.tail_tried),
  fp: str(r.fp),
})

/**
 * Every files row, the state left out (null) except where a sync may need it without reading the
 * file: a last line without its newline (offset < size), whose row records the tail tried.
 *
 * The marks come from the covering index files_marks (migrations 6 and 9), whose last column is
 * the holder process recorded beside the parser's state, so a no-op sync never reads the parsers'
 * states (kilobytes per file): the SELECT's columns are the index's. Only the agents whose files a
 * process holds open (openFileProcesses) record a holder; for the others the flag is ignored.
 */
export function loadFileMarks(store: Store, heldAgents: readonly string[] = []): Map<string, FileMarkRow> {
  const out = new Map<string, FileMarkRow>()
  // Only the agents whose files a process holds open (openFileProcesses) record a holder in the
  // state. Raw rows through the covering index: a no-op sync reads thousands of them.
  const holding = new Set(heldAgents)
  // Iterated, not all(): each raw row dies young (a no-op sync's GC pays for what stays alive).
  const rows = store
    .q(
      `SELECT path, agent, kind, dev, ino, size, mtime_ms, offset, parse_errors, read_at, holder
       FROM files INDEXED BY files_marks`,
    )
    .raw(true)
    .iterate() as IterableIterator<[string, string, string, number, number, number, number, number, number, number, number | null]>
  const tails: string[] = []
  for (const r of rows) {
    const [path, agent, kind, dev, ino, size, mtimeMs, offset, parseErrors, readAt, holder] = r
    const tail = offset < size
    if (tail) tails.push(path)
    out.set(path, {
      agent,
      dev,
      held: holder !== null && holding.has(agent),
      ino,
      kind,
      mtimeMs,
      offset,
      parseErrors,
      path,
      readAt,
      size,
      state: null,
      stateLoaded: tail,
      holder,
      tailTried: null,
      fp: null,
    })
  }

  // After the scan (no statement may run on the connection while another iterates).
  const stateOf = store.q('SELECT state, tail_tried, fp FROM files WHERE path = ?')
  for (const path of tails) {
    const mark = out.get(path)!
    const r = stateOf.get(path) as Record<string, unknown> | undefined
    out.set(path, {...mark, fp: str(r?.fp), state: str(r?.state), tailTried: num(r?.tail_tried)})
  }

  return out
}

/** One files row with its state. */
export function loadFileRow(store: Store, path: string): FileRow | undefined {
  const r = store.q('SELECT * FROM files WHERE path = ?').get(path) as Record<string, unknown> | undefined
  if (!r) return undefined
  const {held: _held, stateLoaded: _loaded, ...row} = toRow(r, (r.state as string | null) ?? null, true)
  return row
}

/** A mark whose file a no-op pass cannot skip on its stat alone: a last line without its newline (offset < size). */
export const MARK_TAIL = 1
/** A holder process is recorded for the file. */
export const MARK_HOLDER = 2
/** A SQLite source (its mark includes the -wal file). */
export const MARK_SQLITE = 4

/**
 * Every file's mark, columnar: the path's index in `index`, and at that index its device, inode,
 * size, mtime (whole ms, as stored) and MARK_* flags. A full pass compares each stat with these
 * and keeps nothing of an unchanged file; no row object is built (src/core/ingest/stat-pass.ts).
 */
export interface StatMarks {
  readonly index: Map<string, number>
  readonly paths: readonly string[]
  readonly dev: Float64Array
  readonly ino: Float64Array
  readonly size: Float64Array
  readonly mtimeMs: Float64Array
  readonly flags: Uint8Array
}

export function loadStatMarks(store: Store): StatMarks {
  // One statement over the covering index files_marks (all its columns are the index's).
  const rows = store
    .q(
      `SELECT path, dev, ino, size, mtime_ms,
              (offset < size) | ((holder IS NOT NULL) << 1) | ((kind = 'sqlite') << 2)
       FROM files INDEXED BY files_marks`,
    )
    .raw(true)
    .all() as [string, number, number, number, number, number][]
  const n = rows.length
  const marks = {
    dev: new Float64Array(n),
    flags: new Uint8Array(n),
    index: new Map<string, number>(),
    ino: new Float64Array(n),
    mtimeMs: new Float64Array(n),
    paths: new Array<string>(n),
    size: new Float64Array(n),
  }
  for (let i = 0; i < n; i++) {
    const r = rows[i]!
    marks.index.set(r[0], i)
    marks.paths[i] = r[0]
    marks.dev[i] = r[1]
    marks.ino[i] = r[2]
    marks.size[i] = r[3]
    marks.mtimeMs[i] = r[4]
    marks.flags[i] = r[5]
  }

  return marks
}
