/**
 * Lean queries for the big lists: ids only, so `cast sessions --json --all`
 * and `cast feed` load full rows a chunk at a time (Store.loadSessions(ids)) and memory stays
 * flat as the store grows.
 */
import type {SessionRow, Store} from './store.js'

/** Every session id, in the order `Store.loadSessions()` returns the rows (rowid). */
export function sessionIdsInOrder(store: Store): string[] {
  return store.q('SELECT id FROM sessions ORDER BY rowid').pluck().all().map(String)
}

/**
 * Top-level sessions active since `since` (last activity, else first seen), newest first, ties in
 * `loadSessions()` order: the candidates of `cast feed`, in its order.
 */
export function* recentTopLevelIds(store: Store, since: number): Generator<string> {
  const stmt = store.q(
    `SELECT id FROM sessions WHERE parent_id IS NULL AND coalesce(last_activity_at, first_seen_at) >= ?
     ORDER BY coalesce(last_activity_at, first_seen_at) DESC, rowid`,
  )
  // All ids first (small strings), then the caller loads rows a chunk at a time: no statement
  // stays open while others run on the same connection.
  for (const id of stmt.pluck().all(since)) yield String(id)
}

/**
 * Which rows can be in the inbox at all (read only the rows it prints): active
 * since `since`, or waiting on someone (core/model/view.ts outlivesRecency: a question bucket, an approval,
 * a question, an open decision card or a declaration while needs_input), pinned, or owned. Every
 * other row is out of the inbox whatever the filters (ownership.ts inInbox). The asks are read
 * from the facts by SQLite (`->`), not by parsing every row's facts in JS.
 */
const CANDIDATE = `(coalesce(last_activity_at, first_seen_at) >= @since OR bucket = 'questions'
  OR (state = 'needs_input' AND (
    facts -> '$.approval' != 'null' OR facts -> '$.question' != 'null'
    OR id IN (SELECT session_id FROM decisions WHERE answered_at IS NULL)
    OR id IN (SELECT session_id FROM records WHERE declaration IS NOT NULL)))
  OR id IN (SELECT session_id FROM records WHERE pinned) OR id IN (SELECT session_id FROM owners))`

export interface InboxCandidates {
  /** The rows that can be in the inbox, in `loadSessions()` order. */
  readonly ids: string[]
  /**
   * The others that `--all` would list (not folded, dismissed or hidden; nobody owns them), by
   * runner (null: no runner), for the "older sessions hidden" line.
   */
  readonly olderByRunner: Map<string | null, number>
}

export function inboxCandidates(store: Store, since: number): InboxCandidates {
  // Through the covering index sessions_inbox (migration 6): every column and expression read here
  // is in it, so the scan never reads the facts. Unordered (an ORDER BY rowid sorts every row in a
  // temporary b-tree, half the scan's cost): only the candidates are put back in rowid order.
  const rows = store
    .q(`SELECT rowid, id, ${CANDIDATE}, coalesce(bucket, 'new'), runner FROM sessions INDEXED BY sessions_inbox`)
    .raw(true)
    .iterate({since}) as IterableIterator<[number, string, number, string, string | null]>
  const candidates: [number, string][] = []
  const olderByRunner = new Map<string | null, number>()
  for (const [rowid, id, candidate, bucket, runner] of rows) {
    if (candidate) candidates.push([rowid, id])
    else if (bucket !== 'folded' && bucket !== 'dismissed' && bucket !== 'hidden')
      olderByRunner.set(runner, (olderByRunner.get(runner) ?? 0) + 1)
  }

  candidates.sort((x, y) => x[0] - y[0])
  return {ids: candidates.map((c) => c[1]), olderByRunner}
}

/**
 * What the streamed `--json --all` needs of a row before it writes any (the filters, the counts
 * and the display order: core/model/view.ts inView with `all`, isLive, isRowQuiet, sortRows), as a
 * SessionRow holding only those fields, in `loadSessions()` order, read without parsing the rows'
 * facts in JavaScript: the last activity and the cwd are columns upsertFacts writes with the facts;
 * SQLite reads the last output only of a working row (quietAt reads it of no other) and
 * `process.alive` only of a row whose facts hold `"alive":true`, from the shown facts
 * (shown-facts.ts; JSON.stringify's text, or SQLite's json_set's: no space after the colon either).
 * One row at a time, so each dies young: the caller must run no other statement meanwhile.
 */
export function* listingKeys(store: Store, me: string): Generator<SessionRow> {
  const rows = store
    .q(
      `SELECT s.id, s.agent, coalesce(s.bucket, 'new'), coalesce(s.state, 'idle'), coalesce(s.reason, 'empty'), s.state_since,
         s.working_since, s.first_seen_at, s.runner, s.last_activity_at,
         CASE WHEN s.state = 'working' THEN coalesce(s.shown, s.facts) ->> '$.lastOutputAt' END, s.cwd,
         CASE WHEN instr(coalesce(s.shown, s.facts), '"alive":true') THEN json_type(coalesce(s.shown, s.facts), '$.process.alive') = 'true' ELSE 0 END,
         coalesce(r.pinned, 0), r.deferred_at,
         (SELECT json_group_array(who) FROM owners WHERE session_id = s.id),
         (SELECT label FROM labels WHERE session_id = s.id AND who = @me)
       FROM sessions s LEFT JOIN records r ON r.session_id = s.id ORDER BY s.rowid`,
    )
    .raw(true)
    .iterate({me}) as IterableIterator<unknown[]>
  for (const r of rows) {
    const label = r[16] as string | null
    yield {
      agent: r[1],
      bucket: r[2],
      facts: {cwd: r[11], lastActivityAt: r[9], lastOutputAt: r[10], process: {alive: r[12] === 1}},
      firstSeenAt: r[7],
      id: r[0],
      labels: label === null ? {} : {[me]: label},
      reason: r[4],
      records: {deferredAt: r[14], owners: JSON.parse(r[15] as string) as string[], pinned: r[13] !== 0},
      runner: r[8],
      state: r[3],
      stateSince: r[5],
      workingSince: r[6],
    } as unknown as SessionRow
  }
}
