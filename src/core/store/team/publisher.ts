/**
 * The outbox publisher: sends the local outbox (src/core/store/outbox.ts) to the team store in
 * seq order through `cast_team.publish` (src/core/store/team/schema-v2.ts), and forgets a batch
 * only after the server answered for every row of it. The server keeps each event once (a
 * local_seq at or below the device's last is dropped), so a batch sent again after a crash or a
 * dropped connection doubles nothing; summaries are replaced only by a newer local seq, so a late
 * retry never rolls a session back.
 *
 * Publishing never wedges: text PostgreSQL cannot store is made safe first (safe-text.ts); a row
 * the server refuses (by its checks, or by an error its content causes) is set aside locally,
 * counted and shown by `cast team status` (aside.ts), and the rest of the batch goes on.
 */
import type {Pool} from 'pg'

import {ackOutbox, countOutbox, type OutboxRow, pendingOutbox} from '../outbox.js'
import type {SessionRow, Store} from '../store.js'
import {type PublishEvent, publishRows, type PublishSession, type Refusal} from './calls.js'
import {notePublishError, setAside} from './aside.js'
import {pgSafe, safeString} from './safe-text.js'
import {summarize} from './summary.js'

export interface PublishContext {
  readonly device: string
  readonly epoch: string
  /** The clock this machine's times are written with (CAST_NOW or the real one). */
  readonly now?: () => number
}

export interface PublishResult {
  readonly sent: number
  readonly batches: number
  readonly pending: number
}

/** The ask line as the views show it (decision, permission, question, error). */
export function askLine(row: SessionRow): {kind: string; text: string} | null {
  const f = row.facts
  if (row.decision && row.decision.answer === null) return {kind: 'decision', text: row.decision.question}
  if (f.approval) return {kind: 'approval', text: f.approval.text}
  if (f.question) return {kind: 'question', text: f.question.text}
  if (f.error && row.reason === 'error') return {kind: 'error', text: f.error.text}
  return null
}

function eventPayload(r: OutboxRow, row: SessionRow | undefined): Record<string, unknown> {
  if (!row) return r.payload
  return {
    ...r.payload,
    agent: row.agent,
    ask: askLine(row),
    cwd: row.facts.cwd,
    live: row.facts.process?.alive === true,
    native_id: row.nativeId,
    owners: row.records.owners,
    runner: row.runner,
    title: row.renamed ?? row.facts.title,
  }
}

/** SQLSTATE classes a row's content can cause (data exception, limits): that row is set aside, not the batch. */
function rowFault(error: unknown): boolean {
  const code = (error as {code?: unknown})?.code
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('54') || code === '23514')
}

/**
 * Send rows; a call the server refuses for its content is split until the row at fault is
 * found and set aside, so one bad row never holds back the others.
 */
async function send(
  pool: Pool,
  ctx: PublishContext,
  sessions: PublishSession[],
  events: PublishEvent[],
  pending: number,
  aside: Refusal[],
): Promise<void> {
  if (sessions.length === 0 && events.length === 0) return
  try {
    const r = await publishRows(pool, {
      device: ctx.device,
      epoch: ctx.epoch,
      events,
      nowMs: Math.round((ctx.now ?? Date.now)()),
      pending,
      sessions,
    })
    aside.push(...r.refused)
  } catch (error) {
    if (!rowFault(error)) throw error
    const why = (error as Error).message
    if (sessions.length + events.length === 1) {
      const s = sessions[0]
      aside.push(s ? {id: s.id, kind: 'session', why} : {kind: 'event', local_seq: events[0]!.local_seq, why})
      return
    }

    const hs = Math.ceil(sessions.length / 2)
    const he = Math.ceil(events.length / 2)
    await send(pool, ctx, sessions.slice(0, hs), events.slice(0, he), pending, aside)
    await send(pool, ctx, sessions.slice(hs), events.slice(he), pending, aside)
  }
}

/** Send one batch; returns how many outbox rows it covered (0: nothing pending). */
export async function publishBatch(store: Store, pool: Pool, ctx: PublishContext, limit = 500): Promise<number> {
  const rows = pendingOutbox(store, limit)
  if (rows.length === 0) return 0
  const ids = [...new Set(rows.map((r) => r.sessionId))]
  const byId = new Map(store.loadSessions(ids).map((r) => [r.id, r]))
  const lastSeq = rows.at(-1)!.seq
  const lastFor = new Map<string, number>()
  for (const r of rows) lastFor.set(r.sessionId, r.seq)
  const left = countOutbox(store) - rows.length
  const sessions: PublishSession[] = ids
    .filter((id) => byId.has(id))
    .map((id) => ({id, local_seq: lastFor.get(id)!, summary: pgSafe(summarize(byId.get(id)!, ctx.device))}))
  const events: PublishEvent[] = rows
    .filter((r) => r.kind !== 'summary')
    .map((r) => ({
      device_at: r.at,
      kind: r.kind,
      local_seq: r.seq,
      payload: pgSafe(eventPayload(r, byId.get(r.sessionId))),
      session_id: safeString(r.sessionId),
    }))
  const aside: Refusal[] = []
  await send(pool, ctx, sessions, events, Math.max(0, left), aside)
  if (aside.length > 0) setAside(store, aside, (ctx.now ?? Date.now)(), events)
  ackOutbox(store, lastSeq)
  return rows.length
}

/** Send everything pending, batch after batch. */
export async function publishAll(store: Store, pool: Pool, ctx: PublishContext, limit = 500): Promise<PublishResult> {
  let sent = 0
  let batches = 0
  try {
    for (;;) {
      const n = await publishBatch(store, pool, ctx, limit)
      if (n === 0) break
      sent += n
      batches++
    }
  } catch (error) {
    notePublishError(store, error, (ctx.now ?? Date.now)())
    throw error
  }

  if (batches > 0) store.setMeta('team.last_publish', String((ctx.now ?? Date.now)()))
  return {batches, pending: countOutbox(store), sent}
}
