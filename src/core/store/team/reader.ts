/**
 * Reading the team store: teammates' sessions as rows (feed, --team, owners' inboxes), the event
 * stream by server seq, and the machines of the team.
 */
import type {Pool} from 'pg'

import type {SessionRow} from '../store.js'
import {rowFromSummary} from './summary.js'
import {parseSummary} from './summary-schema.js'

/** A teammate's row not shown: which, from where, and why. */
export interface SkippedRow {
  readonly id: string
  readonly device: string
  readonly why: string
}

export interface RemoteRows {
  readonly rows: SessionRow[]
  readonly skipped: SkippedRow[]
}

/**
 * Every session the other machines published (this device's own rows come from the local
 * store). A row is shown only when its machine's role is admitted, its runner is that member and
 * its summary parses and names the row's own session, device and runner; any other row is
 * skipped and named, and the rest stand. With onlyId: that session's row alone, by the same checks.
 */
export async function remoteRows(pool: Pool, notDevice: string, onlyId?: string): Promise<RemoteRows> {
  const r = await pool.query<{id: string; device: string; runner: string | null; summary: unknown; skew_ms: number; member: string | null}>(
    `SELECT s.id, s.device, s.runner, s.summary, COALESCE(m.skew_ms, 0) AS skew_ms, p.who AS member
       FROM cast_team.sessions s LEFT JOIN cast_team.machines m ON m.device = s.device LEFT JOIN cast_team.members p ON p.role = m.role
      WHERE s.device <> $1${onlyId === undefined ? '' : ' AND s.id = $2'}`,
    onlyId === undefined ? [notDevice] : [notDevice, onlyId],
  )
  const rows: SessionRow[] = []
  const skipped: SkippedRow[] = []
  for (const x of r.rows) {
    const id = String(x.id)
    const device = String(x.device)
    const skip = (why: string): void => {
      skipped.push({device, id, why})
    }

    if (x.member === null) {
      skip("its machine's role is not a member of the team")
      continue
    }

    if (x.runner !== x.member) {
      skip(`its runner is not its machine's member`)
      continue
    }

    const p = parseSummary(x.summary)
    if (!p.ok) {
      skip(p.why)
      continue
    }

    if (p.summary.id !== id || p.summary.device !== device || p.summary.runner !== x.runner) {
      skip('its summary names another session, device or runner')
      continue
    }

    rows.push(onServerClock(rowFromSummary(p.summary), Number(x.skew_ms)))
  }

  return {rows, skipped}
}

/** A row's times moved from its machine's clock to the server's (the machine's skew taken off). */
function onServerClock(row: SessionRow, skewMs: number): SessionRow {
  if (!skewMs || Math.abs(skewMs) < 1000) return row
  const t = (v: number | null): number | null => (v === null ? null : v - skewMs)
  const f = row.facts
  const b = <B extends {at: number} | null>(x: B): B => (x ? {...x, at: x.at - skewMs} : x)
  return {
    ...row,
    facts: {
      ...f,
      approval: b(f.approval),
      createdAt: t(f.createdAt),
      error: b(f.error),
      lastActivityAt: t(f.lastActivityAt),
      lastOutputAt: t(f.lastOutputAt),
      question: b(f.question),
      turnStartedAt: t(f.turnStartedAt),
    },
    firstSeenAt: row.firstSeenAt - skewMs,
    stateSince: t(row.stateSince),
    workingSince: t(row.workingSince),
  }
}

export interface TeamEvent {
  readonly seq: number
  readonly at: Date
  readonly device: string
  readonly sessionId: string
  readonly kind: string
  readonly deviceAt: number | null
  readonly payload: Record<string, unknown>
}

export async function lastEventSeq(pool: Pool): Promise<number> {
  const r = await pool.query<{s: number}>('SELECT COALESCE(MAX(seq), 0) AS s FROM cast_team.events')
  return Number(r.rows[0]!.s) // an aggregate: always one row
}

export interface MachineRow {
  readonly device: string
  readonly who: string
  readonly lastSeen: Date
  readonly lastSync: Date | null
  readonly pending: number
  readonly sessions: number
}

export async function machines(pool: Pool): Promise<MachineRow[]> {
  const r = await pool.query<{device: string; who: string; last_seen: Date; last_sync: Date | null; pending: number; sessions: number}>(
    `SELECT m.device, m.who, m.last_seen, m.last_sync, m.pending, (SELECT count(*) FROM cast_team.sessions s WHERE s.device = m.device) AS sessions
       FROM cast_team.machines m ORDER BY m.device`,
  )
  return r.rows.map((x) => ({
    device: String(x.device),
    lastSeen: x.last_seen,
    lastSync: x.last_sync ?? null,
    pending: Number(x.pending),
    sessions: Number(x.sessions),
    who: String(x.who),
  }))
}

/** One line of the team stream: the server's fields typed, the rest as the publishing machine wrote them. */
export type TeamWatchLine = Record<string, unknown> & {
  readonly device: string
  readonly id: string
  readonly seq: number
  readonly ts: string
}

/** The team stream's line for one event (like a local watch line, with the server's seq and clock). */
export function watchLine(e: TeamEvent): TeamWatchLine | null {
  if (e.kind !== 'transition') return null
  const p = e.payload
  return {
    agent: p.agent ?? null,
    ask: p.ask ?? null,
    bucket: p.bucket,
    cwd: p.cwd ?? null,
    device: e.device,
    device_seq: p.seq,
    device_ts: typeof p.ts === 'number' ? new Date(p.ts).toISOString() : null,
    event: p.event,
    from: p.from ?? null,
    id: e.sessionId,
    is_live: p.live === true,
    owners: p.owners ?? [],
    reason: p.reason,
    runner: p.runner ?? null,
    seq: e.seq,
    session_id: p.native_id ?? null,
    title: p.title ?? null,
    to: p.to,
    ts: e.at.toISOString(),
  }
}
