/**
 * The check beside the cold-index figure: the store a cold `cast sessions --all` wrote (its read
 * shared with the worker thread) holds exactly what a single-threaded index of the same corpus
 * holds, read in this process by the built engine (readThreads 1): every session's facts, state,
 * reason, bucket and parent, and every file's offset, size, parse errors and resumable state.
 */
import path from 'node:path'

import {importDist, requireFromRoot} from './common.js'

const FILES = 'SELECT path, offset, size, parse_errors, state FROM files ORDER BY path'
const SESSIONS = 'SELECT id, facts, state, reason, bucket, parent_id FROM sessions ORDER BY id'

function snapshot(castHome) {
  const Database = requireFromRoot('better-sqlite3')
  const db = new Database(path.join(castHome, 'cast.db'), {readonly: true})
  try {
    return {files: db.prepare(FILES).all(), sessions: db.prepare(SESSIONS).all()}
  } finally {
    db.close()
  }
}

/** The first difference between two snapshots' rows of one table, or null. */
function firstDiff(table, a, b) {
  if (a.length !== b.length) return `${table}: ${a.length} rows vs ${b.length}`
  for (const [i, row] of a.entries()) {
    const other = b[i]
    for (const k of Object.keys(row)) if (row[k] !== other[k]) return `${table} ${row.path ?? row.id}: ${k} differs`
  }
  return null
}

/**
 * Index `home` on one thread into `inlineHome` at `now` and compare with `castHome`: {same, files,
 * sessions, diff}.
 */
export async function sameStore(castHome, inlineHome, home, now, env) {
  const {Store} = await importDist('core/store/store.js')
  const {Ingester} = await importDist('core/ingest/engine.js')
  const {ADAPTERS} = await importDist('adapters/index.js')
  const store = new Store(inlineHome)
  try {
    new Ingester(store, ADAPTERS, {env, home}, {clock: () => now, device: 'bench', me: 'bench@example.com', readThreads: 1}).sync()
  } finally {
    store.close()
  }
  const got = snapshot(castHome)
  const want = snapshot(inlineHome)
  const diff = firstDiff('files', got.files, want.files) ?? firstDiff('sessions', got.sessions, want.sessions)
  return {diff, files: got.files.length, same: diff === null, sessions: got.sessions.length}
}
