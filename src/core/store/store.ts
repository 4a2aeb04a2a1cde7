/**
 * The cast store: the only module that speaks SQL (DESIGN §4).
 *
 * Every write runs in an IMMEDIATE transaction, so concurrent writers queue on busy_timeout
 * instead of failing, and every change of state, reason or bucket is logged in the transitions
 * table inside the same transaction as the write that caused it.
 */
import type Database from 'better-sqlite3'

import {castId} from '../model/ids.js'
import {planReconcile, type StoredPlacement, summarizeChildren} from '../model/reconcile.js'
import type {
  Agent,
  Bucket,
  ChildSummary,
  Declaration,
  Filing,
  Reason,
  Rule,
  SessionFacts,
  SessionRecords,
  Verdict,
  WorkState,
} from '../model/types.js'
import {EMPTY_FACTS} from '../model/types.js'
import {openDatabase} from './db.js'

export interface FileRow {
  readonly path: string
  readonly agent: string
  readonly kind: string
  readonly dev: number
  readonly ino: number
  readonly size: number
  readonly mtimeMs: number
  readonly offset: number
  readonly state: string | null
  readonly parseErrors: number
  readonly readAt: number
}

export interface StoredContribution {
  readonly path: string
  readonly data: string
}

export interface DecisionCard {
  readonly id: string
  readonly sessionId: string
  readonly question: string
  readonly options: readonly {readonly label: string; readonly effect: string}[]
  readonly recommend: number | null
  readonly why: string | null
  readonly askedAt: number
  readonly askedBy: string
  readonly answer: number | null
  readonly answerNote: string | null
  readonly answeredAt: number | null
  readonly answeredBy: string | null
  readonly auto: boolean
}

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
}

export interface Transition {
  readonly seq: number
  readonly ts: number
  readonly sessionId: string
  readonly event: 'new' | 'transition' | 'gone'
  readonly from: WorkState | null
  readonly to: WorkState
  readonly reason: Reason
  readonly bucket: Bucket
  readonly fromBucket: Bucket | null
}

export interface Lease {
  readonly name: string
  readonly pid: number
  readonly host: string
  readonly startedAt: number
  readonly heartbeatAt: number
  readonly info: Record<string, unknown>
}

/** The part of the records row a triage verb may change (and undo restores). */
export interface RecordsPatch {
  declaration?: Declaration | null
  verdict?: Verdict | null
  verdictAt?: number | null
  filing?: Filing | null
  filedAt?: number | null
  snoozedUntil?: number | null
  killedAt?: number | null
  lastSendAt?: number | null
  pinned?: boolean
  deferredAt?: number | null
  unread?: boolean
  deliveredTurn?: number | null
  renamed?: string | null
}

const RECORD_COLUMNS: Record<keyof RecordsPatch, string> = {
  declaration: 'declaration',
  deferredAt: 'deferred_at',
  deliveredTurn: 'delivered_turn',
  filedAt: 'filed_at',
  filing: 'filing',
  killedAt: 'killed_at',
  lastSendAt: 'last_send_at',
  pinned: 'pinned',
  renamed: 'renamed',
  snoozedUntil: 'snoozed_until',
  unread: 'unread',
  verdict: 'verdict',
  verdictAt: 'verdict_at',
}

type Row = Record<string, unknown>

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v))

function parseJson<T>(text: unknown, fallback: T): T {
  if (typeof text !== 'string') return fallback
  try {
    return JSON.parse(text) as T
  } catch {
    return fallback
  }
}

export interface ReconcileResult {
  readonly transitions: number
}

export class Store {
  readonly db: Database.Database
  readonly home: string
  private readonly stmts = new Map<string, Database.Statement>()

  constructor(home: string, options: {readonly?: boolean} = {}) {
    this.home = home
    this.db = openDatabase(home, options)
  }

  close(): void {
    if (this.db.open) this.db.close()
  }

  /** A prepared statement, created once per store. Store modules (src/core/store/*.ts) use it; nothing outside src/core/store may. */
  q(sql: string): Database.Statement {
    let s = this.stmts.get(sql)
    if (!s) {
      s = this.db.prepare(sql)
      this.stmts.set(sql, s)
    }

    return s
  }

  /** Run `fn` in one IMMEDIATE write transaction. */
  tx<T>(fn: () => T): T {
    if (this.db.inTransaction) return fn()
    return this.db.transaction(fn).immediate()
  }

  // ---------------------------------------------------------------- files and contributions

  loadFiles(): Map<string, FileRow> {
    const out = new Map<string, FileRow>()
    for (const r of this.q('SELECT * FROM files').all() as Row[]) {
      out.set(String(r.path), {
        agent: String(r.agent),
        dev: Number(r.dev),
        ino: Number(r.ino),
        kind: String(r.kind),
        mtimeMs: Number(r.mtime_ms),
        offset: Number(r.offset),
        parseErrors: Number(r.parse_errors),
        path: String(r.path),
        readAt: Number(r.read_at),
        size: Number(r.size),
        state: str(r.state),
      })
    }

    return out
  }

  saveFile(f: FileRow): void {
    this.q(
      `INSERT INTO files (path, agent, kind, dev, ino, size, mtime_ms, offset, state, parse_errors, read_at)
       VALUES (@path, @agent, @kind, @dev, @ino, @size, @mtimeMs, @offset, @state, @parseErrors, @readAt)
       ON CONFLICT (path) DO UPDATE SET agent = excluded.agent, kind = excluded.kind, dev = excluded.dev,
         ino = excluded.ino, size = excluded.size, mtime_ms = excluded.mtime_ms, offset = excluded.offset,
         state = excluded.state, parse_errors = excluded.parse_errors, read_at = excluded.read_at`,
    ).run(f)
  }

  /** Forget a file that disappeared; returns the sessions it contributed to. */
  deleteFile(path: string): {agent: string; nativeId: string}[] {
    const affected = (this.q('SELECT agent, native_id FROM contributions WHERE path = ?').all(path) as Row[]).map((r) => ({
      agent: String(r.agent),
      nativeId: String(r.native_id),
    }))
    this.q('DELETE FROM contributions WHERE path = ?').run(path)
    this.q('DELETE FROM files WHERE path = ?').run(path)
    return affected
  }

  /** Replace what one file says; returns every session whose contributions changed. */
  replaceContributions(path: string, agent: string, contribs: readonly {nativeId: string; data: string}[]): string[] {
    const old = new Map<string, string>()
    for (const r of this.q('SELECT native_id, data FROM contributions WHERE path = ?').all(path) as Row[]) {
      old.set(String(r.native_id), String(r.data))
    }

    const changed: string[] = []
    const seen = new Set<string>()
    for (const c of contribs) {
      seen.add(c.nativeId)
      if (old.get(c.nativeId) === c.data) continue
      this.q(
        `INSERT INTO contributions (path, agent, native_id, data) VALUES (?, ?, ?, ?)
         ON CONFLICT (path, native_id) DO UPDATE SET data = excluded.data, agent = excluded.agent`,
      ).run(path, agent, c.nativeId, c.data)
      changed.push(c.nativeId)
    }

    for (const id of old.keys()) {
      if (seen.has(id)) continue
      this.q('DELETE FROM contributions WHERE path = ? AND native_id = ?').run(path, id)
      changed.push(id)
    }

    return changed
  }

  /** Set what one source says about one session (hook state), creating the source row. */
  upsertContribution(path: string, agent: string, kind: string, nativeId: string, data: string, now: number): void {
    this.q(
      `INSERT INTO files (path, agent, kind, dev, ino, size, mtime_ms, offset, state, parse_errors, read_at)
       VALUES (?, ?, ?, 0, 0, 0, 0, 0, NULL, 0, ?) ON CONFLICT (path) DO UPDATE SET read_at = excluded.read_at`,
    ).run(path, agent, kind, now)
    this.q(
      `INSERT INTO contributions (path, agent, native_id, data) VALUES (?, ?, ?, ?)
       ON CONFLICT (path, native_id) DO UPDATE SET data = excluded.data`,
    ).run(path, agent, nativeId, data)
  }

  getContribution(path: string, nativeId: string): string | null {
    return str((this.q('SELECT data FROM contributions WHERE path = ? AND native_id = ?').get(path, nativeId) as Row | undefined)?.data)
  }

  addParseErrors(path: string, n: number): void {
    this.q('UPDATE files SET parse_errors = parse_errors + ? WHERE path = ?').run(n, path)
  }

  contributionsFor(agent: string, nativeId: string): StoredContribution[] {
    return (this.q('SELECT path, data FROM contributions WHERE agent = ? AND native_id = ?').all(agent, nativeId) as Row[]).map(
      (r) => ({data: String(r.data), path: String(r.path)}),
    )
  }

  /** Sessions whose contributions include a process claim (for the cheap liveness re-check). */
  sessionsWithProcessClaims(): {agent: string; nativeId: string; data: string}[] {
    return (
      this.q(`SELECT agent, native_id, data FROM contributions WHERE data LIKE '%"processClaim"%'`).all() as Row[]
    ).map((r) => ({agent: String(r.agent), data: String(r.data), nativeId: String(r.native_id)}))
  }

  /** The files that describe one session, with their read position and parse errors. */
  filesFor(agent: string, nativeId: string): FileRow[] {
    return (
      this.q(
        `SELECT f.* FROM files f JOIN contributions c ON c.path = f.path WHERE c.agent = ? AND c.native_id = ? ORDER BY f.path`,
      ).all(agent, nativeId) as Row[]
    ).map((r) => ({
      agent: String(r.agent),
      dev: Number(r.dev),
      ino: Number(r.ino),
      kind: String(r.kind),
      mtimeMs: Number(r.mtime_ms),
      offset: Number(r.offset),
      parseErrors: Number(r.parse_errors),
      path: String(r.path),
      readAt: Number(r.read_at),
      size: Number(r.size),
      state: null,
    }))
  }

  totalParseErrors(): number {
    return Number((this.q('SELECT COALESCE(SUM(parse_errors), 0) AS n FROM files').get() as Row).n)
  }

  countFiles(): number {
    return Number((this.q('SELECT COUNT(*) AS n FROM files').get() as Row).n)
  }

  // ---------------------------------------------------------------- sessions

  /**
   * Store the composed facts of a session, creating it on first sight. Returns its cast id and
   * whether anything changed.
   */
  upsertFacts(
    agent: Agent,
    nativeId: string,
    facts: SessionFacts,
    parentNativeId: string | null,
    context: {now: number; runner: string; device: string},
  ): {id: string; changed: boolean} {
    const id = castId(agent, nativeId)
    // A parent the agent's files name wins; else the one `cast spawn --parent` recorded.
    const parentId = parentNativeId ? castId(agent, parentNativeId) : this.spawnedParent(id)
    const data = JSON.stringify(facts)
    const existing = this.q('SELECT facts, parent_id FROM sessions WHERE id = ?').get(id) as Row | undefined
    if (existing && existing.facts === data && str(existing.parent_id) === parentId) return {changed: false, id}
    if (existing) {
      this.q('UPDATE sessions SET facts = ?, cwd = ?, title = ?, last_activity_at = ?, parent_id = ? WHERE id = ?').run(
        data,
        facts.cwd,
        facts.title,
        facts.lastActivityAt,
        parentId,
        id,
      )
    } else {
      this.q(
        `INSERT INTO sessions (id, agent, native_id, parent_id, facts, cwd, title, last_activity_at, runner, device, first_seen_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(id, agent, nativeId, parentId, data, facts.cwd, facts.title, facts.lastActivityAt, context.runner, context.device, context.now)
      // A session `cast spawn --label` started carries its label from its first transition on.
      this.q(
        `INSERT INTO labels (session_id, who, label) SELECT session_id, spawned_by, label FROM spawns
         WHERE session_id = ? AND label IS NOT NULL ON CONFLICT (session_id, who) DO NOTHING`,
      ).run(id)
    }

    return {changed: true, id}
  }

  /** The parent `cast spawn --parent` recorded for a session, if any. */
  private spawnedParent(id: string): string | null {
    return str((this.q('SELECT parent_id FROM spawns WHERE session_id = ?').get(id) as Row | undefined)?.parent_id)
  }

  loadFactsByNative(agent: string, nativeId: string): SessionFacts | null {
    const r = this.q('SELECT facts FROM sessions WHERE agent = ? AND native_id = ?').get(agent, nativeId) as Row | undefined
    return r ? {...EMPTY_FACTS, ...parseJson<Partial<SessionFacts>>(r.facts, {})} : null
  }

  /** Every session id with its native id, for prefix resolution. */
  sessionIds(): {id: string; nativeId: string; agent: string}[] {
    return (this.q('SELECT id, native_id, agent FROM sessions').all() as Row[]).map((r) => ({
      agent: String(r.agent),
      id: String(r.id),
      nativeId: String(r.native_id),
    }))
  }

  countSessions(): number {
    return Number((this.q('SELECT COUNT(*) AS n FROM sessions').get() as Row).n)
  }

  /** Load sessions with their records, owners, labels and open decision. `ids` limits the set. */
  loadSessions(ids?: readonly string[]): SessionRow[] {
    let rows: Row[]
    // A set of ids is read with one statement per table (ids passed as a JSON array), not one per id.
    const list = ids ? JSON.stringify(ids) : null
    if (ids) {
      if (ids.length === 0) return []
      const byId = new Map<string, Row>()
      for (const r of this.q('SELECT * FROM sessions WHERE id IN (SELECT value FROM json_each(?))').all(list) as Row[]) byId.set(String(r.id), r)
      rows = []
      for (const id of ids) {
        const r = byId.get(id)
        if (r) rows.push(r)
      }
    } else {
      rows = this.q('SELECT * FROM sessions').all() as Row[]
    }

    const recs = new Map<string, Row>()
    const owners = new Map<string, string[]>()
    const labels = new Map<string, Record<string, string>>()
    const decisions = new Map<string, DecisionCard>()
    const triggers = new Map<string, {oneShot: number; recurring: number}>()
    const children = new Map<string, {id: string; state: string | null; facts: string}[]>()
    const pull = (sql: string): Row[] =>
      list === null ? (this.q(sql).all() as Row[]) : (this.q(`${sql} AND session_id IN (SELECT value FROM json_each(?))`).all(list) as Row[])

    for (const r of pull('SELECT * FROM records WHERE 1')) recs.set(String(r.session_id), r)
    for (const r of pull('SELECT session_id, who FROM owners WHERE 1')) {
      const k = String(r.session_id)
      owners.set(k, [...(owners.get(k) ?? []), String(r.who)])
    }

    for (const r of pull('SELECT session_id, who, label FROM labels WHERE 1')) {
      const k = String(r.session_id)
      labels.set(k, {...labels.get(k), [String(r.who)]: String(r.label)})
    }

    for (const r of pull('SELECT * FROM decisions WHERE answered_at IS NULL')) {
      const card = decisionFromRow(r)
      const prev = decisions.get(card.sessionId)
      if (!prev || prev.askedAt > card.askedAt) decisions.set(card.sessionId, card)
    }

    for (const r of pull(`SELECT session_id, every_ms FROM schedules WHERE status = 'armed'`)) {
      const k = String(r.session_id)
      const t = triggers.get(k) ?? {oneShot: 0, recurring: 0}
      if (r.every_ms === null) t.oneShot++
      else t.recurring++
      triggers.set(k, t)
    }

    const childRows =
      list === null
        ? (this.q('SELECT id, parent_id, state, facts FROM sessions WHERE parent_id IS NOT NULL').all() as Row[])
        : (this.q('SELECT id, parent_id, state, facts FROM sessions WHERE parent_id IN (SELECT value FROM json_each(?))').all(list) as Row[])
    for (const r of childRows) {
      const k = String(r.parent_id)
      children.set(k, [...(children.get(k) ?? []), {facts: String(r.facts), id: String(r.id), state: str(r.state)}])
    }

    return rows.map((r) => {
      const id = String(r.id)
      const facts = {...EMPTY_FACTS, ...parseJson<Partial<SessionFacts>>(r.facts, {})}
      const kids = children.get(id) ?? []
      const records = recordsFromRow(recs.get(id), owners.get(id) ?? [], triggers.get(id), decisions.get(id)?.askedAt ?? null, facts)
      return {
        agent: String(r.agent) as Agent,
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
        state: (str(r.state) ?? 'idle') as WorkState,
        stateSince: num(r.state_since),
        workingSince: num(r.working_since),
      }
    })
  }

  // ---------------------------------------------------------------- classification and the log

  /**
   * Classify and place sessions at `now`; write state, reason and bucket and one transitions row
   * per change, in one transaction. Children are done before their parents, and a changed child
   * brings its parent along. `ids` undefined means every session.
   */
  reconcile(now: number, ids?: readonly string[]): ReconcileResult {
    return this.tx(() => {
      let transitions = 0
      let targets = ids ? new Set(ids) : undefined
      if (targets && targets.size > 0) {
        // A parent's state depends on its children.
        const parents = this.q('SELECT DISTINCT parent_id FROM sessions WHERE parent_id IS NOT NULL AND id IN (SELECT value FROM json_each(?))').all(
          JSON.stringify([...targets]),
        ) as Row[]
        for (const p of parents) targets.add(String(p.parent_id))
      }

      const rows = this.loadSessions(targets ? [...targets] : undefined)
      // Children first so the parents see their fresh state.
      rows.sort((a, b) => Number(a.parentId === null) - Number(b.parentId === null))
      const fresh = new Map<string, {state: WorkState; facts: SessionFacts}>()
      for (const row of rows) {
        let children = row.children
        if (row.childIds.length > 0 && row.childIds.some((c) => fresh.has(c))) {
          const kids = this.q('SELECT id, state, facts FROM sessions WHERE parent_id = ?').all(row.id) as Row[]
          children = summarizeChildren(
            kids.map((k) => {
              const f = fresh.get(String(k.id))
              return f
                ? {facts: f.facts, state: f.state}
                : {facts: parseJson<Partial<SessionFacts>>(k.facts, {}), state: str(k.state)}
            }),
          )
        }

        transitions += this.reconcileRow({...row, children}, now, fresh)
      }

      targets = undefined
      return {transitions}
    })
  }

  /** Plan one row's reconcile (core/model/reconcile.ts) and apply it: the store only loads and writes. */
  private reconcileRow(row: SessionRow, now: number, fresh: Map<string, {state: WorkState; facts: SessionFacts}>): number {
    const s = this.q('SELECT state, reason, bucket, rule, next_check_at FROM sessions WHERE id = ?').get(row.id) as Row
    const stored: StoredPlacement = {
      bucket: str(s.bucket) as Bucket | null,
      nextCheckAt: num(s.next_check_at),
      reason: str(s.reason) as Reason | null,
      rule: num(s.rule),
      state: str(s.state) as WorkState | null,
      workingSince: row.workingSince,
    }
    const plan = planReconcile({children: row.children, facts: row.facts, isChild: row.parentId !== null, records: row.records, stored}, now)
    const c = plan.classification
    if (plan.releaseFiling) this.q('UPDATE records SET filing = NULL, filed_at = NULL WHERE session_id = ?').run(row.id)
    fresh.set(row.id, {facts: row.facts, state: c.state})
    if (plan.write === 'check') this.q('UPDATE sessions SET rule = ?, next_check_at = ? WHERE id = ?').run(c.rule, c.nextCheckAt, row.id)
    if (plan.write !== 'row') return 0
    this.q(
      `UPDATE sessions SET state = ?, reason = ?, rule = ?, bucket = ?, next_check_at = ?,
         state_since = coalesce(?, state_since), working_since = ? WHERE id = ?`,
    ).run(c.state, c.reason, c.rule, plan.bucket, c.nextCheckAt, plan.stateSince, plan.workingSince, row.id)
    this.q(
      `INSERT INTO transitions (ts, session_id, event, from_state, to_state, reason, bucket, from_bucket)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(now, row.id, plan.event, stored.state, c.state, c.reason, plan.bucket, stored.bucket)
    return 1
  }

  /** Sessions whose answer may change with time alone, due by `now`. */
  dueForCheck(now: number): string[] {
    return (this.q('SELECT id FROM sessions WHERE next_check_at IS NOT NULL AND next_check_at <= ?').all(now) as Row[]).map((r) =>
      String(r.id),
    )
  }

  /** The earliest next_check_at, for the watcher's one timer. */
  nextCheckAt(): number | null {
    return num((this.q('SELECT MIN(next_check_at) AS t FROM sessions WHERE next_check_at IS NOT NULL').get() as Row).t)
  }

  lastSeq(): number {
    return Number((this.q('SELECT COALESCE(MAX(seq), 0) AS s FROM transitions').get() as Row).s)
  }

  transitionsSince(seq: number, limit = 1000): Transition[] {
    return (this.q('SELECT * FROM transitions WHERE seq > ? ORDER BY seq LIMIT ?').all(seq, limit) as Row[]).map((r) => ({
      bucket: String(r.bucket) as Bucket,
      event: String(r.event) as Transition['event'],
      from: str(r.from_state) as WorkState | null,
      fromBucket: str(r.from_bucket) as Bucket | null,
      reason: String(r.reason) as Reason,
      seq: Number(r.seq),
      sessionId: String(r.session_id),
      to: String(r.to_state) as WorkState,
      ts: Number(r.ts),
    }))
  }

  // ---------------------------------------------------------------- records

  getRecordsRow(sessionId: string): RecordsPatch {
    const r = this.q('SELECT * FROM records WHERE session_id = ?').get(sessionId) as Row | undefined
    if (!r) return {}
    return {
      declaration: parseJson<Declaration | null>(r.declaration, null),
      deferredAt: num(r.deferred_at),
      deliveredTurn: num(r.delivered_turn),
      filedAt: num(r.filed_at),
      filing: str(r.filing) as Filing | null,
      killedAt: num(r.killed_at),
      lastSendAt: num(r.last_send_at),
      pinned: Boolean(r.pinned),
      renamed: str(r.renamed),
      snoozedUntil: num(r.snoozed_until),
      unread: Boolean(r.unread),
      verdict: str(r.verdict) as Verdict | null,
      verdictAt: num(r.verdict_at),
    }
  }

  /** Change a session's records (creating the row). Call inside tx() with reconcile after. */
  patchRecords(sessionId: string, patch: RecordsPatch): void {
    this.q('INSERT INTO records (session_id) VALUES (?) ON CONFLICT (session_id) DO NOTHING').run(sessionId)
    const keys = Object.keys(patch) as (keyof RecordsPatch)[]
    if (keys.length === 0) return
    const sets = keys.map((k) => `${RECORD_COLUMNS[k]} = ?`).join(', ')
    const values = keys.map((k) => {
      const v = patch[k]
      if (k === 'declaration') return v === null || v === undefined ? null : JSON.stringify(v)
      if (typeof v === 'boolean') return v ? 1 : 0
      return v ?? null
    })
    this.db.prepare(`UPDATE records SET ${sets} WHERE session_id = ?`).run(...values, sessionId)
  }

  // ---------------------------------------------------------------- lease

  /** Take the named lease if it is free, ours, or its holder is dead/stale. */
  acquireLease(name: string, holder: {pid: number; host: string}, now: number, isStale: (l: Lease) => boolean, info: Record<string, unknown> = {}): boolean {
    return this.tx(() => {
      const cur = this.getLease(name, now)
      if (cur && !(cur.pid === holder.pid && cur.host === holder.host) && !isStale(cur)) return false
      this.q(
        `INSERT INTO leases (name, pid, host, started_at, heartbeat_at, info) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET pid = excluded.pid, host = excluded.host, started_at = excluded.started_at,
           heartbeat_at = excluded.heartbeat_at, info = excluded.info`,
      ).run(name, holder.pid, holder.host, now, now, JSON.stringify(info))
      return true
    })
  }

  /**
   * Beat the lease's heart; false when the lease is no longer this holder's. With a token (kept in
   * the lease's info), the holder is that token, not only the pid: pids repeat across pid
   * namespaces and hosts.
   */
  heartbeatLease(name: string, pid: number, now: number, info?: Record<string, unknown>, token?: string): boolean {
    const who = token === undefined ? '' : ` AND json_extract(info, '$.token') IS ?`
    const args = token === undefined ? [name, pid] : [name, pid, token]
    const r = info
      ? this.q(`UPDATE leases SET heartbeat_at = ?, info = ? WHERE name = ? AND pid = ?${who}`).run(now, JSON.stringify(info), ...args)
      : this.q(`UPDATE leases SET heartbeat_at = ? WHERE name = ? AND pid = ?${who}`).run(now, ...args)
    return r.changes > 0
  }

  /** Is the lease still this holder's? (Checked inside each of the live ingester's write transactions.) */
  holdsLease(name: string, pid: number, token: string): boolean {
    return this.q(`SELECT 1 FROM leases WHERE name = ? AND pid = ? AND json_extract(info, '$.token') IS ?`).get(name, pid, token) !== undefined
  }

  releaseLease(name: string, pid: number, token?: string): void {
    if (token === undefined) this.q('DELETE FROM leases WHERE name = ? AND pid = ?').run(name, pid)
    else this.q(`DELETE FROM leases WHERE name = ? AND pid = ? AND json_extract(info, '$.token') IS ?`).run(name, pid, token)
  }

  /**
   * The lease, with a heartbeat (or start) from the future clamped to `now` and written back so:
   * a clock that jumped back, or a forged row, never keeps a dead holder fresh; it goes stale
   * like any other from now on.
   */
  getLease(name: string, now = Date.now()): Lease | null {
    const r = this.q('SELECT * FROM leases WHERE name = ?').get(name) as Row | undefined
    if (!r) return null
    let heartbeatAt = Number(r.heartbeat_at)
    let startedAt = Number(r.started_at)
    if (heartbeatAt > now || startedAt > now || !Number.isFinite(heartbeatAt)) {
      heartbeatAt = Number.isFinite(heartbeatAt) ? Math.min(heartbeatAt, now) : 0
      startedAt = Math.min(startedAt, heartbeatAt)
      try {
        this.q('UPDATE leases SET heartbeat_at = ?, started_at = ? WHERE name = ? AND heartbeat_at = ?').run(heartbeatAt, startedAt, name, r.heartbeat_at)
      } catch {
        // a read-only store: clamped for this reading only
      }
    }

    return {
      heartbeatAt,
      host: String(r.host),
      info: parseJson(r.info, {}),
      name: String(r.name),
      pid: Number(r.pid),
      startedAt,
    }
  }

  // ---------------------------------------------------------------- meta

  getMeta(key: string): string | null {
    return str((this.q('SELECT value FROM meta WHERE key = ?').get(key) as Row | undefined)?.value)
  }

  setMeta(key: string, value: string): void {
    this.q('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value)
  }
}

function decisionFromRow(r: Row): DecisionCard {
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

export {decisionFromRow}

function recordsFromRow(
  r: Row | undefined,
  owners: string[],
  triggers: {oneShot: number; recurring: number} | undefined,
  openDecisionAt: number | null,
  facts: SessionFacts,
): SessionRecords {
  const verdict = str(r?.verdict) as Verdict | null
  return {
    declaration: parseJson<Declaration | null>(r?.declaration, null),
    deferredAt: num(r?.deferred_at),
    delivered: r?.delivered_turn !== null && r?.delivered_turn !== undefined && Number(r.delivered_turn) === facts.turnIndex,
    filedAt: num(r?.filed_at),
    filing: str(r?.filing) as Filing | null,
    killedAt: num(r?.killed_at),
    lastSendAt: num(r?.last_send_at),
    openDecision: openDecisionAt !== null,
    openDecisionAt,
    owners,
    pinned: Boolean(r?.pinned),
    snoozedUntil: num(r?.snoozed_until),
    triggers: triggers ?? {oneShot: 0, recurring: 0},
    unread: Boolean(r?.unread),
    verdict: verdict ? {at: Number(r?.verdict_at ?? 0), verdict} : null,
  }
}
