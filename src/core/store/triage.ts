/**
 * The person's side of the inbox (docs/contract.md §3.3, §3.6, §3.7): triage verbs, the undo history and
 * the snooze sweep. Every action is one IMMEDIATE transaction that saves what it is about to
 * change into `history`, applies the change and reconciles, so the transitions log gets exactly
 * one row per change and `cast undo` can put every row of the action back.
 */
import {planSnoozeDue, type RecordsPatch, type TriageChange} from '../model/triage.js'
import {NO_RECORDS} from '../model/session-shape.js'
import type {SessionRow, Store} from './store.js'
import {addOwner, type OwnerRow, ownersOf, removeOwner, replaceOwners} from './ownership.js'
import {num} from './rows.js'

/** What `history.before` holds: the part of the session an action changed, as it was before. */
export interface HistoryBefore {
  /** The id of the action's first history row; absent on that first row itself. */
  readonly action?: number
  readonly records: RecordsPatch
  readonly owners?: readonly OwnerRow[]
  readonly label?: {readonly who: string; readonly label: string | null}
  /** Schedules the action cancelled (re-armed on undo). */
  readonly schedules?: readonly string[]
}

export interface ActionContext {
  readonly verb: string
  readonly who: string
  readonly now: number
}

export interface AppliedAction {
  /** The history action id; null when nothing applied. */
  readonly action: number | null
  /** Sessions the action touched. */
  readonly sessions: readonly string[]
  readonly transitions: number
}

/** The value a records column holds when its row does not exist yet. */
const RECORD_DEFAULTS: Required<RecordsPatch> = {...NO_RECORDS, renamed: null}

type Row = Record<string, unknown>

/**
 * Apply one action to several sessions: `plan` (a verb's plan, src/core/model/triage.ts) sees each
 * session as it is inside the transaction and says what to change (null: leave it alone). One
 * transaction: history, change, reconcile.
 */
export function applyTriage(
  store: Store,
  ctx: ActionContext,
  ids: readonly string[],
  plan: (row: SessionRow) => TriageChange | null,
): AppliedAction {
  return store.tx(() => {
    let action: number | null = null
    const touched: string[] = []
    for (const row of store.loadSessions(ids)) {
      const change = plan(row)
      if (change === null) continue
      const before = applyChange(store, ctx, row.id, change)
      const saved: HistoryBefore = action === null ? before : {action, ...before}
      const id = Number(
        store
          .q('INSERT INTO history (at, who, verb, session_id, before) VALUES (?, ?, ?, ?, ?)')
          .run(ctx.now, ctx.who, ctx.verb, row.id, JSON.stringify(saved)).lastInsertRowid,
      )
      action ??= id
      touched.push(row.id)
    }

    const {transitions} = touched.length > 0 ? store.reconcile(ctx.now, touched) : {transitions: 0}
    return {action, sessions: touched, transitions}
  })
}

function applyChange(store: Store, ctx: ActionContext, id: string, change: TriageChange): HistoryBefore {
  const current = store.getRecordsRow(id)
  const records: RecordsPatch = {}
  for (const key of Object.keys(change.records ?? {}) as (keyof RecordsPatch)[]) {
    ;(records as Record<string, unknown>)[key] = current[key] ?? RECORD_DEFAULTS[key]
  }

  let before: HistoryBefore = {records}
  if (change.records) store.patchRecords(id, change.records)
  if (change.owners) {
    before = {...before, owners: ownersOf(store, id)}
    if (change.owners.clear) replaceOwners(store, id, [])
    for (const who of change.owners.remove ?? []) removeOwner(store, id, who)
    for (const who of change.owners.add ?? []) addOwner(store, id, who, ctx.who, ctx.now)
  }

  if (change.label !== undefined) {
    before = {...before, label: {label: labelOf(store, id, ctx.who), who: ctx.who}}
    setLabel(store, id, ctx.who, change.label)
  }

  if (change.cancelSchedules) before = {...before, schedules: cancelArmedSchedules(store, id)}
  return before
}

// ---------------------------------------------------------------- labels

export function labelOf(store: Store, sessionId: string, who: string): string | null {
  const r = store.q('SELECT label FROM labels WHERE session_id = ? AND who = ?').get(sessionId, who) as Row | undefined
  return r ? String(r.label) : null
}

/** One personal label per user per session: set replaces, null removes. */
export function setLabel(store: Store, sessionId: string, who: string, label: string | null): void {
  if (label === null) {
    store.q('DELETE FROM labels WHERE session_id = ? AND who = ?').run(sessionId, who)
    return
  }

  store
    .q('INSERT INTO labels (session_id, who, label) VALUES (?, ?, ?) ON CONFLICT (session_id, who) DO UPDATE SET label = excluded.label')
    .run(sessionId, who, label)
}

// ---------------------------------------------------------------- schedules (kill)

/** Cancel a session's armed scheduled messages; returns their ids. */
export function cancelArmedSchedules(store: Store, sessionId: string): string[] {
  const ids = (store.q(`SELECT id FROM schedules WHERE session_id = ? AND status = 'armed'`).all(sessionId) as Row[]).map((r) =>
    String(r.id),
  )
  store.q(`UPDATE schedules SET status = 'cancelled' WHERE session_id = ? AND status = 'armed'`).run(sessionId)
  return ids
}

/** Re-arm schedules a kill cancelled, if nothing else changed them since. */
function rearmSchedules(store: Store, ids: readonly string[]): void {
  for (const id of ids) store.q(`UPDATE schedules SET status = 'armed' WHERE id = ? AND status = 'cancelled'`).run(id)
}

// ---------------------------------------------------------------- history and undo

export interface HistoryAction {
  readonly action: number
  readonly at: number
  readonly who: string
  readonly verb: string
  readonly sessions: readonly string[]
  readonly undoneAt: number | null
}

const ACTION = `COALESCE(json_extract(before, '$.action'), id)`

/** The newest actions first (`who` null: everyone's). */
export function listActions(store: Store, who: string | null, limit: number): HistoryAction[] {
  const sql = `SELECT ${ACTION} AS action, MIN(at) AS at, who, verb, json_group_array(session_id) AS sessions, MAX(undone_at) AS undone_at
    FROM history ${who === null ? '' : 'WHERE who = ?'} GROUP BY action ORDER BY action DESC LIMIT ?`
  const rows = (who === null ? store.q(sql).all(limit) : store.q(sql).all(who, limit)) as Row[]
  return rows.map((r) => ({
    action: Number(r.action),
    at: Number(r.at),
    sessions: JSON.parse(String(r.sessions)) as string[],
    undoneAt: r.undone_at === null ? null : Number(r.undone_at),
    verb: String(r.verb),
    who: String(r.who),
  }))
}

/**
 * Undo `who`'s last action that is not undone yet: put back what every row of it saved, mark it
 * undone and reconcile, in one transaction. Sessions that no longer exist are skipped. Null when
 * there is nothing to undo.
 */
export function undoLast(store: Store, who: string, now: number): (HistoryAction & {transitions: number}) | null {
  return store.tx(() => {
    const last = store
      .q(`SELECT ${ACTION} AS action FROM history WHERE who = ? AND undone_at IS NULL ORDER BY id DESC LIMIT 1`)
      .get(who) as Row | undefined
    if (!last) return null
    const action = Number(last.action)
    const rows = store.q(`SELECT * FROM history WHERE ${ACTION} = ? AND undone_at IS NULL ORDER BY id`).all(action) as Row[]
    const sessions: string[] = []
    for (const r of rows) {
      const id = String(r.session_id)
      if (!store.q('SELECT 1 FROM sessions WHERE id = ?').get(id)) continue
      const before = JSON.parse(String(r.before)) as HistoryBefore
      if (Object.keys(before.records).length > 0) store.patchRecords(id, before.records)
      if (before.owners) replaceOwners(store, id, before.owners)
      if (before.label) setLabel(store, id, before.label.who, before.label.label)
      if (before.schedules) rearmSchedules(store, before.schedules)
      sessions.push(id)
    }

    store.q(`UPDATE history SET undone_at = ? WHERE ${ACTION} = ? AND undone_at IS NULL`).run(now, action)
    const {transitions} = sessions.length > 0 ? store.reconcile(now, sessions) : {transitions: 0}
    const first = rows[0]!
    return {action, at: Number(first.at), sessions, transitions, undoneAt: now, verb: String(first.verb), who: String(first.who)}
  })
}

// ---------------------------------------------------------------- snooze sweep

export interface SweepResult {
  /** Snoozed sessions whose time came, woken by this sweep (each by exactly one sweep). */
  readonly woken: readonly string[]
  /** Other sessions whose time rules came due and were re-checked. */
  readonly checked: readonly string[]
  readonly transitions: number
}

/**
 * Wake what came due: each snoozed session the model's `planSnoozeDue` says came due loses its
 * filing, and every session whose next_check_at is due is reconciled. One IMMEDIATE
 * transaction, so concurrent sweeps (and the daemon) never wake the same snooze twice.
 */
export function sweepSnoozes(store: Store, now: number): SweepResult {
  return store.tx(() => {
    const woken: string[] = []
    for (const r of store.q(`SELECT session_id, snoozed_until FROM records WHERE filing = 'snoozed'`).all() as Row[]) {
      const patch = planSnoozeDue({filing: 'snoozed', snoozedUntil: num(r.snoozed_until)}, now)
      if (patch === null) continue
      store.patchRecords(String(r.session_id), patch)
      woken.push(String(r.session_id))
    }

    const checked = store.dueForCheck(now).filter((id) => !woken.includes(id))
    const all = [...woken, ...checked]
    // Always: reconcile also decides the parks (store/parks.ts), so a stale one is dropped on the next load.
    const {transitions} = store.reconcile(now, all)
    return {checked, transitions, woken}
  })
}
