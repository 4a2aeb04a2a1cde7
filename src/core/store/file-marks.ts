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
