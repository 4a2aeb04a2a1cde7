/**
 * Presence (`cast presence`): whether a person is online, away, or in a custom state from the
 * config. Agents read it to know how long a question may block on them.
 */
import type {Store} from './store.js'

type Row = Record<string, unknown>

export interface PresenceRow {
  readonly who: string
  readonly presence: string
  readonly setAt: number
  /** When it lapses back to online; null = until changed. */
  readonly until: number | null
}

export function getPresence(store: Store, who: string): PresenceRow | null {
  const r = store.q('SELECT * FROM presence WHERE who = ?').get(who) as Row | undefined
  if (!r) return null
  return {presence: String(r.presence), setAt: Number(r.set_at), until: r.until === null ? null : Number(r.until), who: String(r.who)}
}

export function setPresence(store: Store, row: PresenceRow): void {
  store.tx(() => {
    store
      .q(
        `INSERT INTO presence (who, presence, set_at, until) VALUES (?, ?, ?, ?)
         ON CONFLICT (who) DO UPDATE SET presence = excluded.presence, set_at = excluded.set_at, until = excluded.until`,
      )
      .run(row.who, row.presence, row.setAt, row.until)
  })
}

/** The presence in force at `now`: a lapsed one reads online. */
export function effectivePresence(row: PresenceRow | null, now: number): {presence: string; since: number | null; until: number | null} {
  if (row === null) return {presence: 'online', since: null, until: null}
  if (row.until !== null && now >= row.until) return {presence: 'online', since: row.until, until: null}
  return {presence: row.presence, since: row.setAt, until: row.until}
}
