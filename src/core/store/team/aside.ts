/**
 * What publishing could not deliver, kept on this machine for `cast team status`: rows the team
 * store refused (set aside, the rest of their batch went on) and the last publish error; and the
 * daemon's read counters (src/lib/team/sync.ts). All live in the local store's meta table (keys
 * team.aside, team.last_error, team.reads): small, bounded, no schema of their own.
 */
import type {Store} from '../store.js'
import type {PublishEvent, Refusal} from './calls.js'

export interface AsideRow {
  readonly at: number
  readonly kind: 'session' | 'event'
  /** The session (a summary, or the event's session). */
  readonly session: string | null
  readonly localSeq: number | null
  readonly why: string
  /** The event's kind and payload as it was (kept here, never sent). */
  readonly event?: {kind: string; payload: Record<string, unknown>}
}

export interface Aside {
  readonly count: number
  readonly rows: readonly AsideRow[]
}

const KEEP = 100

export function readAside(store: Store): Aside {
  try {
    const v = JSON.parse(store.getMeta('team.aside') ?? '') as Aside
    return {count: Number(v.count) || 0, rows: Array.isArray(v.rows) ? v.rows : []}
  } catch {
    return {count: 0, rows: []}
  }
}

/** Keep the refused rows (the last 100 in full) and count them all. */
export function setAside(store: Store, refused: readonly Refusal[], at: number, events: readonly PublishEvent[]): void {
  const bySeq = new Map(events.map((e) => [e.local_seq, e]))
  const before = readAside(store)
  const rows: AsideRow[] = refused.map((r) => {
    const e = r.local_seq === undefined ? undefined : bySeq.get(Number(r.local_seq))
    return {
      at,
      kind: r.kind,
      localSeq: r.local_seq === undefined || r.local_seq === null ? null : Number(r.local_seq),
      session: r.kind === 'session' ? (r.id ?? null) : (e?.session_id ?? null),
      why: String(r.why).slice(0, 500),
      ...(e ? {event: {kind: e.kind, payload: e.payload}} : {}),
    }
  })
  store.setMeta('team.aside', JSON.stringify({count: before.count + rows.length, rows: [...before.rows, ...rows].slice(-KEEP)}))
}

export interface PublishError {
  readonly at: number
  readonly message: string
}

export function notePublishError(store: Store, error: unknown, at: number): void {
  const message = ((error as Error)?.message ?? String(error)).split('\n')[0]!.slice(0, 500)
  store.setMeta('team.last_error', JSON.stringify({at, message}))
}

export function lastPublishError(store: Store): PublishError | null {
  try {
    const v = JSON.parse(store.getMeta('team.last_error') ?? '') as PublishError
    return typeof v.message === 'string' && typeof v.at === 'number' ? v : null
  } catch {
    return null
  }
}

export function lastPublish(store: Store): number | null {
  return Number(store.getMeta('team.last_publish') ?? 0) || null
}

/** Meta key of the daemon's counters (readsOf): what notifications made this machine do. */
export const READS = 'team.reads'

export interface TeamReads {
  /** Executor passes (each a bounded read of the actions queued here) by the process `pid`. */
  readonly action_passes: number
  /** Notifications that process received on cast_actions. */
  readonly notifications: number
  readonly pid: number
  readonly at: number
}

export function readsOf(store: Store): TeamReads | null {
  try {
    const v = JSON.parse(store.getMeta(READS) ?? '') as TeamReads
    return typeof v.action_passes === 'number' && typeof v.notifications === 'number' ? v : null
  } catch {
    return null
  }
}
