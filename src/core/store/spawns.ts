/**
 * Sessions `cast spawn` started: the parent link and the tree caps of seed 001 (depth at most 3
 * below the root, at most 5 spawned sessions per tree, finished ones included). A spawn is
 * reserved before the agent starts, so two concurrent spawns cannot both take the last slot, and
 * dropped again if the agent never starts.
 */
import {shortRandomId} from './decisions.js'
import {num, str} from './rows.js'
import type {Store} from './store.js'

type Row = Record<string, unknown>

export const MAX_TREE_DEPTH = 3
export const MAX_TREE_SIZE = 5

export interface SpawnRow {
  readonly id: string
  readonly sessionId: string | null
  readonly agent: string
  readonly parentId: string | null
  readonly rootId: string | null
  readonly depth: number
  readonly label: string | null
  readonly cwd: string
  readonly prompt: string
  readonly mode: 'tmux' | 'headless'
  readonly target: string | null
  readonly pid: number | null
  readonly spawnedAt: number
  readonly spawnedBy: string
  readonly status: 'starting' | 'running'
}

function fromRow(r: Row): SpawnRow {
  return {
    agent: String(r.agent),
    cwd: String(r.cwd),
    depth: Number(r.depth),
    id: String(r.id),
    label: str(r.label),
    mode: String(r.mode) as SpawnRow['mode'],
    parentId: str(r.parent_id),
    pid: num(r.pid),
    prompt: String(r.prompt),
    rootId: str(r.root_id),
    sessionId: str(r.session_id),
    spawnedAt: Number(r.spawned_at),
    spawnedBy: String(r.spawned_by),
    status: String(r.status) as SpawnRow['status'],
    target: str(r.target),
  }
}

export interface NewSpawn {
  readonly agent: string
  /** The child's cast id when the agent takes a preassigned session id. */
  readonly sessionId: string | null
  readonly parentId: string | null
  readonly label: string | null
  readonly cwd: string
  readonly prompt: string
  readonly mode: SpawnRow['mode']
  readonly spawnedAt: number
  readonly spawnedBy: string
}

export type Reservation =
  | {readonly kind: 'ok'; readonly spawn: SpawnRow}
  | {readonly kind: 'too_deep'; readonly depth: number}
  | {readonly kind: 'tree_full'; readonly size: number; readonly rootId: string}

/** Where a session sits in a spawn tree: its root and depth (a session cast did not spawn is a root). */
export function treePosition(store: Store, sessionId: string): {rootId: string; depth: number} {
  const s = spawnOf(store, sessionId)
  return s ? {depth: s.depth, rootId: s.rootId ?? sessionId} : {depth: 0, rootId: sessionId}
}

/** Sessions spawned into the tree under `rootId`, finished ones included (the root itself is not counted). */
export function treeSize(store: Store, rootId: string): number {
  return Number((store.q('SELECT COUNT(*) AS n FROM spawns WHERE root_id = ? AND parent_id IS NOT NULL').get(rootId) as Row).n)
}

/** Check the caps and reserve a slot, atomically. */
export function reserveSpawn(store: Store, s: NewSpawn, caps = {maxDepth: MAX_TREE_DEPTH, maxSize: MAX_TREE_SIZE}): Reservation {
  return store.tx(() => {
    let depth = 0
    let rootId: string | null = s.sessionId
    if (s.parentId !== null) {
      const pos = treePosition(store, s.parentId)
      depth = pos.depth + 1
      rootId = pos.rootId
      if (depth > caps.maxDepth) return {depth, kind: 'too_deep'} as const
      const size = treeSize(store, rootId)
      if (size >= caps.maxSize) return {kind: 'tree_full', rootId, size} as const
    }

    const id = shortRandomId('p')
    store
      .q(
        `INSERT INTO spawns (id, session_id, agent, parent_id, root_id, depth, label, cwd, prompt, mode, spawned_at, spawned_by, status)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'starting')`,
      )
      .run(id, s.sessionId, s.agent, s.parentId, rootId, depth, s.label, s.cwd, s.prompt, s.mode, s.spawnedAt, s.spawnedBy)
    return {kind: 'ok', spawn: getSpawn(store, id)!} as const
  })
}

/** Where the agent was started: its tmux pane or log file, and its pid. */
export function setSpawnTarget(store: Store, id: string, target: string, pid: number | null): void {
  store.tx(() => store.q('UPDATE spawns SET target = ?, pid = ? WHERE id = ?').run(target, pid, id))
}

/** The agent never started: give the slot back. */
export function dropSpawn(store: Store, id: string): void {
  store.tx(() => store.q(`DELETE FROM spawns WHERE id = ? AND status = 'starting'`).run(id))
}

/**
 * The spawned session appeared: link it, set its parent and its label (if the ingester has not
 * already done so on first sight), and re-place it and its parent.
 */
export function linkSpawn(store: Store, id: string, sessionId: string, now: number): SpawnRow {
  return store.tx(() => {
    store
      .q(`UPDATE spawns SET session_id = ?, root_id = COALESCE(root_id, ?), status = 'running' WHERE id = ?`)
      .run(sessionId, sessionId, id)
    const s = getSpawn(store, id)!
    if (s.parentId !== null) store.q('UPDATE sessions SET parent_id = ? WHERE id = ? AND parent_id IS NULL').run(s.parentId, sessionId)
    if (s.label !== null) {
      store
        .q('INSERT INTO labels (session_id, who, label) VALUES (?, ?, ?) ON CONFLICT (session_id, who) DO NOTHING')
        .run(sessionId, s.spawnedBy, s.label)
    }

    store.reconcile(now, s.parentId === null ? [sessionId] : [sessionId, s.parentId])
    return s
  })
}

export function getSpawn(store: Store, id: string): SpawnRow | null {
  const r = store.q('SELECT * FROM spawns WHERE id = ?').get(id) as Row | undefined
  return r ? fromRow(r) : null
}

/** The spawn record of a session, if cast started it. */
export function spawnOf(store: Store, sessionId: string): SpawnRow | null {
  const r = store.q('SELECT * FROM spawns WHERE session_id = ?').get(sessionId) as Row | undefined
  return r ? fromRow(r) : null
}
