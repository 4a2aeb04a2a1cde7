/**
 * The rows the streamed `cast sessions --json --all` prints (src/lib/views/stream-listing.ts), loaded
 * for that listing alone: what sessionJson (src/lib/views/views.ts) reads of a row, with the values
 * Store.loadSessions gives those fields. A chunk of ids is one statement (the sessions with their
 * records); the sparse tables (owners, my labels, open decision cards, parks, the panes cast
 * spawn opened, the children links) are read once. Of each row's facts, only the part a listing
 * reads (`sessions.shown`, shown-facts.ts) is parsed, once, and kept as parsed (loadSessions copies
 * the whole facts over EMPTY_FACTS; here only the absent keys are filled in).
 */
import type {TreeHolds} from '../model/holds.js'
import type {Park} from '../model/parks.js'
import {type DecisionCard, openDecisionBySession} from '../model/session-shape.js'
import type {Bucket, Reason, Rule, SessionFacts, SessionRecords, WorkState} from '../model/types.js'
import {EMPTY_FACTS} from '../model/types.js'
import {treeHolds} from './holds.js'
import {type ShownFacts, UNSHOWN_KEYS} from './shown-facts.js'
import {loadParks} from './parks.js'
import {num, parseJson, type Row, str} from './rows.js'
import {decisionFromRow, type SessionRow} from './sessions.js'
import type {Store} from './store.js'

/** Of a session row, what a listed session's JSON is made of (src/lib/views/views.ts sessionJson). */
export type ListedRow = Pick<
  SessionRow,
  | 'agent'
  | 'bucket'
  | 'childIds'
  | 'decision'
  | 'device'
  | 'firstSeenAt'
  | 'id'
  | 'labels'
  | 'nativeId'
  | 'park'
  | 'parentId'
  | 'reason'
  | 'renamed'
  | 'rule'
  | 'runner'
  | 'spawnPane'
  | 'state'
  | 'stateSince'
  | 'tree'
  | 'workingSince'
> & {
  /** The facts a listing reads (shown-facts.ts): `sessions.shown`, else the facts. */
  readonly facts: ShownFacts
  readonly records: Pick<SessionRecords, 'declaration' | 'deferredAt' | 'filing' | 'owners' | 'pinned' | 'snoozedUntil'>
}

const COLUMNS = `s.id, s.agent, s.native_id, s.parent_id, coalesce(s.shown, s.facts), s.state, s.reason, s.rule, s.bucket, s.state_since,
    s.working_since, s.runner, s.device, r.declaration, r.filing, r.pinned, r.snoozed_until, r.renamed,
    s.first_seen_at, r.deferred_at, s.rowid`
/** The position of s.rowid in COLUMNS. */
const ROWID = 20
/** The rows of a JSON array of ids. */
const BY_IDS = `SELECT ${COLUMNS} FROM json_each(@ids) j JOIN sessions s ON s.id = j.value LEFT JOIN records r ON r.session_id = s.id`
/** The next rows in rowid order (loadSessions' order). */
const NEXT = `SELECT ${COLUMNS} FROM sessions s LEFT JOIN records r ON r.session_id = s.id WHERE s.rowid > @after ORDER BY s.rowid LIMIT @limit`

const FACT_KEYS = (Object.keys(EMPTY_FACTS) as (keyof SessionFacts)[]).filter(
  (k) => !(UNSHOWN_KEYS as readonly string[]).includes(k),
) as (keyof ShownFacts)[]

export class ListingRows {
  private readonly decisions: Map<string, DecisionCard>
  private readonly parks: Map<string, Park>
  private readonly panes = new Map<string, {pane: string; pid: number}>()
  private readonly children = new Map<string, string[]>()
  /** Owners per session, each session's in `who` order (the primary key's, as loadSessions reads them). */
  private readonly owners = new Map<string, string[]>()
  /** My label per session. */
  private readonly labels = new Map<string, string>()

  constructor(
    private readonly store: Store,
    private readonly me: string,
  ) {
    const open = (store.q('SELECT * FROM decisions WHERE answered_at IS NULL').all() as Row[]).map(decisionFromRow)
    this.decisions = openDecisionBySession(open)
    this.parks = loadParks(store, null)
    for (const r of store.q(`SELECT session_id, target, pid FROM spawns WHERE mode = 'tmux' AND pid IS NOT NULL`).all() as Row[]) {
      const pane = /^tmux (%\d+)/.exec(str(r.target) ?? '')?.[1]
      if (pane) this.panes.set(String(r.session_id), {pane, pid: Number(r.pid)})
    }

    // The sparse tables whole, once: a subquery per row cost more than the row's own columns.
    const owners = store.q('SELECT session_id, who FROM owners ORDER BY session_id, who').raw(true).all() as [string, string][]
    for (const [id, who] of owners) {
      const list = this.owners.get(id)
      if (list) list.push(who)
      else this.owners.set(id, [who])
    }

    for (const [id, label] of store.q('SELECT session_id, label FROM labels WHERE who = ?').raw(true).all(me) as [string, string][])
      this.labels.set(id, label)
    // Per parent in rowid order, as loadSessions reads them.
    const kids = store.q('SELECT id, parent_id FROM sessions WHERE parent_id IS NOT NULL ORDER BY rowid').raw(true).all() as [
      string,
      string,
    ][]
    for (const [id, parent] of kids) {
      const list = this.children.get(parent)
      if (list) list.push(id)
      else this.children.set(parent, [id])
    }
  }

  /** The rows of `ids`, in that order (an id with no row is left out). */
  load(ids: readonly string[]): ListedRow[] {
    if (ids.length === 0) return []
    const raw = this.store
      .q(BY_IDS)
      .raw(true)
      .all({ids: JSON.stringify(ids)}) as unknown[][]
    const byId = new Map<string, unknown[]>()
    for (const r of raw) byId.set(r[0] as string, r)
    const rows: ListedRow[] = []
    for (const want of ids) {
      const r = byId.get(want)
      if (r) rows.push(this.shape(r))
    }

    return this.withTrees(rows)
  }

  /** Every row in loadSessions' order (rowid), `chunk` rows a statement (none stays open between). */
  *all(chunk: number): Generator<ListedRow> {
    let after = 0
    for (;;) {
      const raw = this.store.q(NEXT).raw(true).all({after, limit: chunk}) as unknown[][]
      if (raw.length === 0) return
      after = Number(raw.at(-1)![ROWID])
      yield* this.withTrees(raw.map((r) => this.shape(r)))
    }
  }

  private withTrees(rows: ListedRow[]): ListedRow[] {
    const trees = treeHolds(this.store, rows)
    for (const r of rows) (r as {tree?: TreeHolds}).tree = trees.get(r.id)
    return rows
  }

  private shape(r: unknown[]): ListedRow {
    const id = r[0] as string
    let facts = parseJson<Record<string, unknown> | null>(r[4], null)
    if (facts === null || typeof facts !== 'object' || Array.isArray(facts)) facts = {}
    for (const k of FACT_KEYS) if (facts[k] === undefined) facts[k] = EMPTY_FACTS[k]
    const label = this.labels.get(id)
    return {
      agent: String(r[1]),
      bucket: (str(r[8]) ?? 'new') as Bucket,
      childIds: this.children.get(id) ?? [],
      decision: this.decisions.get(id) ?? null,
      device: str(r[12]),
      facts: facts as unknown as ShownFacts,
      firstSeenAt: Number(r[18]),
      id,
      labels: label === undefined ? {} : {[this.me]: label},
      nativeId: String(r[2]),
      park: this.parks.get(id) ?? null,
      parentId: str(r[3]),
      reason: (str(r[6]) ?? 'empty') as Reason,
      records: {
        declaration: parseJson(r[13], null),
        deferredAt: num(r[19]),
        filing: str(r[14]) as SessionRecords['filing'],
        owners: [...(this.owners.get(id) ?? [])],
        pinned: Boolean(r[15]),
        snoozedUntil: num(r[16]),
      },
      renamed: str(r[17]),
      rule: (num(r[7]) ?? 8) as Rule,
      runner: str(r[11]),
      spawnPane: this.panes.get(id) ?? null,
      state: (str(r[5]) ?? 'idle') as WorkState,
      stateSince: num(r[9]),
      workingSince: num(r[10]),
    }
  }
}
