/**
 * The sessions table: composed facts in, rows out with their records, owners, labels, open
 * decision and children (what the classifier, placement and every listing read).
 */
import type {TreeHolds} from '../model/holds.js'
import {shownFactsText} from './shown-facts.js'
import {castId} from '../model/ids.js'
import type {Park} from '../model/parks.js'
import {summarizeChildren} from '../model/reconcile.js'
import {type DecisionCard, openDecisionBySession, shapeRecords} from '../model/session-shape.js'
import type {Agent, Bucket, ChildSummary, Reason, Rule, SessionFacts, SessionRecords, WorkState} from '../model/types.js'
import {EMPTY_FACTS} from '../model/types.js'
import {treeHolds} from './holds.js'
import {loadParks} from './parks.js'
import {recordsFromRow} from './records.js'
import {num, parseJson, type Row, str} from './rows.js'
import type {Conn} from './conn.js'

export type {DecisionCard} from '../model/session-shape.js'

export interface SessionRow {
  readonly id: string
  readonly agent: Agent
  readonly nativeId: string
  readonly parentId: string | null
  readonly facts: SessionFacts
  readonly records: SessionRecords
  readonly children: ChildSummary
  readonly childIds: readonly string[]
  readonly state: WorkState
  readonly reason: Reason
  readonly rule: Rule
  readonly bucket: Bucket
  readonly nextCheckAt: number | null
  readonly stateSince: number | null
  readonly workingSince: number | null
  readonly firstSeenAt: number
  readonly runner: string | null
  readonly device: string | null
  /** Every user's personal label: who -> label. */
  readonly labels: Readonly<Record<string, string>>
  readonly renamed: string | null
  readonly decision: DecisionCard | null
  /** What the session and its subagent tree hold (store/holds.ts); absent on a teammate's row. */
  readonly tree?: TreeHolds
  /** Its park (holding, or the last one that ended), from store/parks.ts. */
  readonly park?: Park | null
  /** The tmux pane `cast spawn` opened for this session, and the pid it started there (spawns.ts). */
  readonly spawnPane?: {readonly pane: string; readonly pid: number} | null
}

/**
 * Store the composed facts of a session, creating it on first sight. Returns its cast id and
 * whether anything changed.
 */
export function upsertFacts(
  store: Conn,
  agent: Agent,
  nativeId: string,
  facts: SessionFacts,
  parentNativeId: string | null,
  context: {now: number; runner: string; device: string},
): {id: string; changed: boolean} {
  const id = castId(agent, nativeId)
  // A parent the agent's files name wins; else the one `cast spawn --parent` recorded.
  const parentId = parentNativeId ? castId(agent, parentNativeId) : spawnedParent(store, id)
  const data = JSON.stringify(facts)
  const existing = store.q('SELECT facts, parent_id FROM sessions WHERE id = ?').get(id) as Row | undefined
  if (existing && existing.facts === data && str(existing.parent_id) === parentId) return {changed: false, id}
  if (existing) {
    store
      .q('UPDATE sessions SET facts = ?, shown = ?, cwd = ?, title = ?, last_activity_at = ?, parent_id = ? WHERE id = ?')
      .run(data, shownFactsText(facts), facts.cwd, facts.title, facts.lastActivityAt, parentId, id)
  } else {
    store
      .q(
        `INSERT INTO sessions (id, agent, native_id, parent_id, facts, shown, cwd, title, last_activity_at, runner, device, first_seen_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        agent,
        nativeId,
        parentId,
        data,
        shownFactsText(facts),
        facts.cwd,
        facts.title,
        facts.lastActivityAt,
        context.runner,
        context.device,
        context.now,
      )
    // A session `cast spawn --label` started carries its label from its first transition on.
    store
      .q(
        `INSERT INTO labels (session_id, who, label) SELECT session_id, spawned_by, label FROM spawns
       WHERE session_id = ? AND label IS NOT NULL ON CONFLICT (session_id, who) DO NOTHING`,
      )
      .run(id)
  }

  return {changed: true, id}
}

/** The parent `cast spawn --parent` recorded for a session, if any. */
function spawnedParent(store: Conn, id: string): string | null {
  return str((store.q('SELECT parent_id FROM spawns WHERE session_id = ?').get(id) as Row | undefined)?.parent_id)
}

export function loadFactsByNative(store: Conn, agent: string, nativeId: string): SessionFacts | null {
  const r = store.q('SELECT facts FROM sessions WHERE agent = ? AND native_id = ?').get(agent, nativeId) as Row | undefined
  return r ? {...EMPTY_FACTS, ...parseJson<Partial<SessionFacts>>(r.facts, {})} : null
}

/** The cast id of the session an agent names `nativeId`, by the UNIQUE (agent, native_id) index. */
export function sessionIdByNative(store: Conn, agent: string, nativeId: string): string | null {
  const r = store.q('SELECT id FROM sessions WHERE agent = ? AND native_id = ?').get(agent, nativeId) as Row | undefined
  return r ? String(r.id) : null
}

/** Every session id with its native id, for prefix resolution. */
export function sessionIds(store: Conn): {id: string; nativeId: string; agent: string}[] {
  return (store.q('SELECT id, native_id, agent FROM sessions').all() as Row[]).map((r) => ({
    agent: String(r.agent),
    id: String(r.id),
    nativeId: String(r.native_id),
  }))
}

/**
 * The sessions a typed id can resolve to: those whose cast id or native id equals it or starts
 * with it (as typed, or lowercased). Every candidate resolvePrefix and its ambiguity check can
 * return, without loading every id (src/lib/base/resolve.ts).
 *
 * The rows carry the facts (kilobytes each): a scan of the table reads them all (180 ms at 10,000
 * sessions). The cast ids are searched as a range of their primary key's index, and the native
 * ids by scanning the UNIQUE (agent, native_id) index alone (migration 1 creates both; SQLite
 * names the second sqlite_autoindex_sessions_2), then only the matching rows are read.
 */
export function sessionIdCandidates(store: Conn, typed: string): {id: string; nativeId: string; agent: string}[] {
  const params = {lower: typed.toLowerCase(), typed}
  let rows: Row[]
  try {
    rows = store.q(CANDIDATES_SQL.replace('{native}', 'INDEXED BY sqlite_autoindex_sessions_2')).all(params) as Row[]
  } catch {
    // A store whose table was built another way: the same query without naming the index.
    rows = store.q(CANDIDATES_SQL.replace('{native}', '')).all(params) as Row[]
  }

  return rows.map((r) => ({agent: String(r.agent), id: String(r.id), nativeId: String(r.native_id)}))
}

const CANDIDATES_SQL = `SELECT id, native_id, agent FROM sessions WHERE rowid IN (
    SELECT rowid FROM sessions WHERE id >= :lower AND id < :lower || char(1114111)
    UNION ALL
    SELECT rowid FROM sessions {native}
     WHERE substr(native_id, 1, length(:typed)) = :typed OR lower(substr(native_id, 1, length(:typed))) = :lower)`

export function countSessions(store: Conn): number {
  return Number((store.q('SELECT COUNT(*) AS n FROM sessions').get() as Row).n)
}

/** The session rows themselves: all, or those of `ids` in that order (ids passed as one JSON array). */
function sessionRows(store: Conn, ids: readonly string[] | undefined, list: string | null): Row[] {
  if (!ids) return store.q('SELECT * FROM sessions').all() as Row[]
  const byId = new Map<string, Row>()
  for (const r of store.q('SELECT * FROM sessions WHERE id IN (SELECT value FROM json_each(?))').all(list) as Row[])
    byId.set(String(r.id), r)
  const rows: Row[] = []
  for (const id of ids) {
    const r = byId.get(id)
    if (r) rows.push(r)
  }

  return rows
}

/** What loadSessions joins to each row, read with one statement per table. */
interface Joined {
  readonly recs: Map<string, Row>
  readonly owners: Map<string, string[]>
  readonly labels: Map<string, Record<string, string>>
  readonly decisions: Map<string, DecisionCard>
  readonly triggers: Map<string, {oneShot: number; recurring: number}>
  readonly children: Map<string, {id: string; state: string | null; facts: string}[]>
  readonly panes: Map<string, {pane: string; pid: number}>
}

function joined(store: Conn, list: string | null): Joined {
  const j: Joined = {
    children: new Map(),
    decisions: new Map(),
    labels: new Map(),
    owners: new Map(),
    panes: new Map(),
    recs: new Map(),
    triggers: new Map(),
  }
  const pull = (sql: string): Row[] =>
    list === null
      ? (store.q(sql).all() as Row[])
      : (store.q(`${sql} AND session_id IN (SELECT value FROM json_each(?))`).all(list) as Row[])

  for (const r of pull('SELECT * FROM records WHERE 1')) j.recs.set(String(r.session_id), r)
  for (const r of pull('SELECT session_id, who FROM owners WHERE 1')) {
    const k = String(r.session_id)
    j.owners.set(k, [...(j.owners.get(k) ?? []), String(r.who)])
  }

  for (const r of pull('SELECT session_id, who, label FROM labels WHERE 1')) {
    const k = String(r.session_id)
    j.labels.set(k, {...j.labels.get(k), [String(r.who)]: String(r.label)})
  }

  for (const [k, card] of openDecisionBySession(pull('SELECT * FROM decisions WHERE answered_at IS NULL').map(decisionFromRow)))
    j.decisions.set(k, card)

  for (const r of pull(`SELECT session_id, every_ms FROM schedules WHERE status = 'armed'`)) {
    const k = String(r.session_id)
    const t = j.triggers.get(k) ?? {oneShot: 0, recurring: 0}
    if (r.every_ms === null) t.oneShot++
    else t.recurring++
    j.triggers.set(k, t)
  }

  for (const r of pull(`SELECT session_id, target, pid FROM spawns WHERE mode = 'tmux' AND pid IS NOT NULL`)) {
    const pane = /^tmux (%\d+)/.exec(str(r.target) ?? '')?.[1]
    if (pane) j.panes.set(String(r.session_id), {pane, pid: Number(r.pid)})
  }

  const childRows =
    list === null
      ? (store.q('SELECT id, parent_id, state, facts FROM sessions WHERE parent_id IS NOT NULL').all() as Row[])
      : (store.q('SELECT id, parent_id, state, facts FROM sessions WHERE parent_id IN (SELECT value FROM json_each(?))').all(list) as Row[])
  for (const r of childRows) {
    const k = String(r.parent_id)
    j.children.set(k, [...(j.children.get(k) ?? []), {facts: String(r.facts), id: String(r.id), state: str(r.state)}])
  }

  return j
}

/**
 * Load sessions with their records, owners, labels and open decision. `ids` limits the set.
 * `holds: false` leaves out what only the views read (the subagent tree's holds and the park):
 * reconcile (store/reconcile.ts) classifies without them.
 */
export function loadSessions(store: Conn, ids?: readonly string[], {holds = true}: {holds?: boolean} = {}): SessionRow[] {
  if (ids && ids.length === 0) return []
  const list = ids ? JSON.stringify(ids) : null
  const rows = sessionRows(store, ids, list)
  const {children, decisions, labels, owners, panes, recs, triggers} = joined(store, list)
  const loaded = rows.map((r): SessionRow => {
    const id = String(r.id)
    const facts = {...EMPTY_FACTS, ...parseJson<Partial<SessionFacts>>(r.facts, {})}
    const kids = children.get(id) ?? []
    const rec = recs.get(id)
    const joins = {openDecision: decisions.get(id) ?? null, owners: owners.get(id) ?? [], triggers: triggers.get(id)}
    const records: SessionRecords = shapeRecords(rec ? recordsFromRow(rec) : null, joins, facts.turnIndex)
    return {
      agent: String(r.agent),
      bucket: (str(r.bucket) ?? 'new') as Bucket,
      childIds: kids.map((k) => k.id),
      children: summarizeChildren(kids.map((k) => ({facts: parseJson<Partial<SessionFacts>>(k.facts, {}), state: k.state}))),
      decision: decisions.get(id) ?? null,
      device: str(r.device),
      facts,
      firstSeenAt: Number(r.first_seen_at),
      id,
      labels: labels.get(id) ?? {},
      nativeId: String(r.native_id),
      nextCheckAt: num(r.next_check_at),
      parentId: str(r.parent_id),
      reason: (str(r.reason) ?? 'empty') as Reason,
      records,
      renamed: str(recs.get(id)?.renamed),
      rule: (num(r.rule) ?? 8) as Rule,
      runner: str(r.runner),
      spawnPane: panes.get(id) ?? null,
      state: (str(r.state) ?? 'idle') as WorkState,
      stateSince: num(r.state_since),
      workingSince: num(r.working_since),
    }
  })
  if (!holds) return loaded
  const trees = treeHolds(store, loaded)
  const parks = loadParks(store, list)
  return loaded.map((r) => ({...r, park: parks.get(r.id) ?? null, tree: trees.get(r.id)}))
}

export function decisionFromRow(r: Row): DecisionCard {
  return {
    answer: num(r.answer),
    answerNote: str(r.answer_note),
    answeredAt: num(r.answered_at),
    answeredBy: str(r.answered_by),
    askedAt: Number(r.asked_at),
    askedBy: String(r.asked_by),
    auto: Boolean(r.auto),
    id: String(r.id),
    options: parseJson(r.options, []),
    question: String(r.question),
    recommend: num(r.recommend),
    sessionId: String(r.session_id),
    why: str(r.why),
  }
}
