/**
 * The store's side of the runs listed from their process before the agent wrote any file
 * (src/core/ingest/unwritten-runs.ts): their pseudo contributions, and the sessions that can
 * supersede them.
 */
import {text} from './rows.js'
import type {Store} from './store.js'

/** Every pseudo path of such a run starts with this: `run://<agent>/<native id>`. */
export const RUN_PATH_PREFIX = 'run://'
/** The native id of such a run: `run-<pid>-<start ms>` (an agent's own ids never start so). */
export const RUN_ID_PREFIX = 'run-'

type Row = Record<string, unknown>

export interface RunContributionRow {
  readonly path: string
  readonly agent: string
  readonly nativeId: string
  readonly data: string
}

/** The runs' contributions in the store (a range over the primary key). */
export function runContributions(store: Store): RunContributionRow[] {
  return (store.q(`SELECT path, agent, native_id, data FROM contributions WHERE path >= 'run://' AND path < 'run:/0'`).all() as Row[]).map(
    (r) => ({agent: String(r.agent), data: String(r.data), nativeId: String(r.native_id), path: String(r.path)}),
  )
}

/** Sessions of `agent` in `cwd` (not runs) that began at or after `since` (their createdAt fact). */
export function sessionsBegunSince(store: Store, agent: string, cwd: string, since: number): string[] {
  return (
    store
      .q(
        `SELECT native_id FROM sessions WHERE agent = ? AND cwd = ? AND json_extract(facts, '$.createdAt') >= ?
           AND native_id NOT LIKE 'run-%'`,
      )
      .all(agent, cwd, since) as Row[]
  ).map((r) => text(r.native_id))
}

/** Forget a run's session (its records go with it): the session its agent wrote has taken over. */
export function forgetRun(store: Store, agent: string, nativeId: string): void {
  if (!nativeId.startsWith(RUN_ID_PREFIX)) return
  store.q('DELETE FROM sessions WHERE agent = ? AND native_id = ?').run(agent, nativeId)
}
