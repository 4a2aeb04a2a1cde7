/**
 * Queries for the terminal fallback (src/core/ingest/screen.ts): the screen contributions it
 * stored (one pseudo file `screen://tmux/<pane>` per agent pane), and the sessions a pane could
 * belong to by working directory.
 */
import type {Store} from './store.js'

/** Every pseudo path the sweep writes starts with this. */
export const SCREEN_PATH_PREFIX = 'screen://'

export interface ScreenContributionRow {
  readonly path: string
  readonly agent: string
  readonly nativeId: string
  readonly data: string
}

type Row = Record<string, unknown>

/** The screen contributions in the store (a range over the primary key, no scan). */
export function screenContributions(store: Store): ScreenContributionRow[] {
  // '0' follows '/' in byte order: this is every path that starts with 'screen://'.
  return (
    store.q(`SELECT path, agent, native_id, data FROM contributions WHERE path >= 'screen://' AND path < 'screen:/0'`).all() as Row[]
  ).map((r) => ({agent: String(r.agent), data: String(r.data), nativeId: String(r.native_id), path: String(r.path)}))
}

export interface CwdCandidate {
  readonly nativeId: string
  readonly lastActivityAt: number | null
  readonly parentId: string | null
  /** The process the session's facts name, if any. */
  readonly pid: number | null
  readonly alive: boolean
}

/** The sessions of one agent whose working directory is `cwd`. */
export function sessionsInCwd(store: Store, agent: string, cwd: string): CwdCandidate[] {
  return (
    store
      .q(
        `SELECT native_id, last_activity_at, parent_id, json_extract(facts, '$.process.pid') AS pid,
           json_extract(facts, '$.process.alive') AS alive
         FROM sessions WHERE agent = ? AND cwd = ?`,
      )
      .all(agent, cwd) as Row[]
  ).map((r) => ({
    alive: r.alive === 1 || r.alive === true,
    lastActivityAt: r.last_activity_at === null ? null : Number(r.last_activity_at),
    nativeId: String(r.native_id),
    parentId: r.parent_id === null ? null : String(r.parent_id),
    pid: r.pid === null || r.pid === undefined ? null : Number(r.pid),
  }))
}
