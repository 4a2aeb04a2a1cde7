/**
 * The outbox publisher: sends the local outbox (src/core/store/outbox.ts) to the team store in
 * seq order, one server transaction per batch, and forgets a batch only after the server
 * committed it. The server keeps each row once ((device, epoch, local_seq) is unique), so a batch
 * sent again after a crash or a dropped connection doubles nothing; summaries are replaced only by
 * a newer local seq, so a late retry never rolls a session back. Event seqs are handed out under
 * one advisory lock held to commit, so a stream reading "everything after seq N" never skips a row
 * that committed late.
 */
import type {Pool} from 'pg'

import {ackOutbox, countOutbox, type OutboxRow, pendingOutbox} from '../outbox.js'
import type {SessionRow, Store} from '../store.js'
import {inTx} from './client.js'
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

/** Send one batch; returns how many outbox rows it covered (0: nothing pending). */
export async function publishBatch(store: Store, pool: Pool, ctx: PublishContext, limit = 500): Promise<number> {
  const rows = pendingOutbox(store, limit)
  if (rows.length === 0) return 0
  const ids = [...new Set(rows.map((r) => r.sessionId))]
  const byId = new Map(store.loadSessions(ids).map((r) => [r.id, r]))
  const lastSeq = rows.at(-1)!.seq
  const lastFor = new Map<string, number>()
  for (const r of rows) lastFor.set(r.sessionId, r.seq)
  const events = rows.filter((r) => r.kind !== 'summary')
  const left = countOutbox(store) - rows.length
  await inTx(pool, async (c) => {
    const sessions = ids.filter((id) => byId.has(id))
    if (sessions.length > 0) {
      const sums = sessions.map((id) => summarize(byId.get(id)!, ctx.device))
      await c.query(
        `INSERT INTO cast_team.sessions AS s (id, device, runner, owners, cwd, state, bucket, summary, epoch, local_seq)
         SELECT t.id, $1, t.runner, t.owners, t.cwd, t.state, t.bucket, t.summary, $2, t.local_seq
           FROM jsonb_to_recordset($3::jsonb) AS t(id text, runner text, owners text[], cwd text, state text, bucket text, summary jsonb, local_seq bigint)
         ON CONFLICT (id) DO UPDATE SET device = excluded.device, runner = excluded.runner, owners = excluded.owners, cwd = excluded.cwd,
           state = excluded.state, bucket = excluded.bucket, summary = excluded.summary, epoch = excluded.epoch, local_seq = excluded.local_seq,
           updated_at = now(),
           activity_at = CASE WHEN (s.summary -> 'facts' ->> 'lastActivityAt') IS DISTINCT FROM (excluded.summary -> 'facts' ->> 'lastActivityAt')
                              THEN now() ELSE s.activity_at END
         WHERE s.epoch <> excluded.epoch OR s.local_seq <= excluded.local_seq`,
        [
          ctx.device,
          ctx.epoch,
          JSON.stringify(
            sums.map((s) => ({
              bucket: s.bucket,
              cwd: s.facts.cwd ?? null,
              id: s.id,
              local_seq: lastFor.get(s.id),
              owners: s.records.owners,
              runner: s.runner,
              state: s.state,
              summary: s,
            })),
          ),
        ],
      )
    }

    if (events.length > 0) {
      // Seqs in commit order: one publisher at a time takes them, and holds them to commit.
      await c.query(`SELECT pg_advisory_xact_lock(hashtext('cast_team.events'))`)
      const ins = await c.query<{seq: number}>(
        `INSERT INTO cast_team.events (device, epoch, local_seq, session_id, kind, device_at, payload)
         SELECT $1, $2, t.local_seq, t.session_id, t.kind, t.device_at, t.payload
           FROM jsonb_to_recordset($3::jsonb) AS t(local_seq bigint, session_id text, kind text, device_at bigint, payload jsonb)
          ORDER BY t.local_seq
         ON CONFLICT (device, epoch, local_seq) DO NOTHING
         RETURNING seq`,
        [
          ctx.device,
          ctx.epoch,
          JSON.stringify(
            events.map((r) => ({
              device_at: r.at,
              kind: r.kind,
              local_seq: r.seq,
              payload: eventPayload(r, byId.get(r.sessionId)),
              session_id: r.sessionId,
            })),
          ),
        ],
      )
      if (ins.rows.length > 0) await c.query(`SELECT pg_notify('cast_team', $1)`, [String(Math.max(...ins.rows.map((x) => Number(x.seq))))])
    }

    await c.query(
      `UPDATE cast_team.machines SET last_seen = now(), last_sync = now(), pending = $2,
         skew_ms = $3::bigint - (extract(epoch FROM clock_timestamp()) * 1000)::bigint WHERE device = $1`,
      [ctx.device, Math.max(0, left), Math.round((ctx.now ?? Date.now)())],
    )
  })
  ackOutbox(store, lastSeq)
  return rows.length
}

/** Send everything pending, batch after batch. */
export async function publishAll(store: Store, pool: Pool, ctx: PublishContext, limit = 500): Promise<PublishResult> {
  let sent = 0
  let batches = 0
  for (;;) {
    const n = await publishBatch(store, pool, ctx, limit)
    if (n === 0) break
    sent += n
    batches++
  }

  return {batches, pending: countOutbox(store), sent}
}
