/**
 * The files table without the parsers' states (issue 16 point 2): a no-op sync compares each
 * file's stat with its mark and needs a state only for the few files it reads, so it does not
 * carry every file's resumable parser state (kilobytes each) into memory.
 */
import type {FileRow, Store} from './store.js'

/** A files row whose state is loaded only on demand; `held`: its state names a holder process. */
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
})

/**
 * Every files row, the state left out (null) except where a sync may need it without reading the
 * file: a last line without its newline (offset < size), whose state records the tail tried.
 */
export function loadFileMarks(store: Store, heldAgents: readonly string[] = []): Map<string, FileMarkRow> {
  const out = new Map<string, FileMarkRow>()
  // Only the agents whose files a process holds open (openFileProcesses) record a holder in the state: the
  // others' states are not even scanned. Raw rows: a no-op sync reads thousands of them.
  const held = heldAgents.length > 0 ? `CASE WHEN agent IN (SELECT value FROM json_each(@held)) THEN coalesce(instr(state, '"__holder":'), 0) ELSE 0 END` : '0'
  const rows = store
    .q(
      `SELECT path, agent, kind, dev, ino, size, mtime_ms, offset, parse_errors, read_at, ${held},
         CASE WHEN offset < size THEN state END
       FROM files`,
    )
    .raw(true)
    .all(heldAgents.length > 0 ? {held: JSON.stringify(heldAgents)} : {}) as unknown[][]
  for (const r of rows) {
    const offset = Number(r[7])
    const size = Number(r[5])
    const tail = offset < size
    out.set(String(r[0]), {
      agent: String(r[1]),
      dev: Number(r[3]),
      held: Number(r[10]) > 0,
      ino: Number(r[4]),
      kind: String(r[2]),
      mtimeMs: Number(r[6]),
      offset,
      parseErrors: Number(r[8]),
      path: String(r[0]),
      readAt: Number(r[9]),
      size,
      state: tail ? ((r[11] as string | null) ?? null) : null,
      stateLoaded: tail,
    })
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
