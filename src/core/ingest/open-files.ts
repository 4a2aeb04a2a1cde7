/**
 * Which sessions a process holds open: the files in /proc/<pid>/fd that the store knows, and for a
 * file every process of an agent shares (a database: its contributions carry `heldAt`, adapter.ts),
 * where the process's descriptor stands. The pane tie (pane-tie.ts) and the process scan
 * (process-scan.ts) both ask it.
 */
import type {Agent} from '../model/types.js'
import {contributionsAtPath} from '../store/screen.js'
import type {Store} from '../store/store.js'
import {filePositions, filesOpenBy} from './process-table.js'

/**
 * The sessions whose files one process holds open (known sessions only). A file every process of
 * the agent holds (its contributions carry `heldAt`, adapter.ts) names a session only where the
 * process's descriptor stands at one of its offsets; `shared` says the process has written to
 * such a file (a descriptor past its start), so its files alone say which session it shows.
 */
export function openFileSessions(store: Store, pid: number, agent: Agent): {sessions: Map<string, string | null>; shared: boolean} {
  const sessions = new Map<string, string | null>()
  let shared = false
  for (const file of filesOpenBy(pid)) {
    let positions: number[] | undefined
    for (const row of contributionsAtPath(store, file)) {
      if (row.agent !== agent || !row.known) continue
      const at = heldAtOf(row.data)
      if (at !== null) {
        positions ??= filePositions(pid, file).filter((p) => p > 0)
        // A descriptor past the start has written there (a database read and written with pread/pwrite stays at 0).
        if (positions.length > 0) shared = true
        if (!positions.some((p) => at.includes(p))) continue
      }

      sessions.set(row.nativeId, row.parentId)
    }
  }

  return {sessions, shared}
}

/** A stored contribution's `heldAt` (adapter.ts), or null when it has none. */
function heldAtOf(data: string): readonly number[] | null {
  if (!data.includes('"heldAt"')) return null
  try {
    const at = (JSON.parse(data) as {heldAt?: unknown}).heldAt
    return Array.isArray(at) ? at.filter((n): n is number => typeof n === 'number') : null
  } catch {
    return null
  }
}
