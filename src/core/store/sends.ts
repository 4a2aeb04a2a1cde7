/**
 * Sends (`cast send`, scheduled deliveries, decision answers): every message cast put into a
 * session. A send is new activity: it sets the session's last send time, which clears a kill and
 * expires a verdict, and reads turn_pending until the agent picks it up.
 */
import type {Store} from './store.js'

type Row = Record<string, unknown>

export interface SendRecord {
  readonly sessionId: string
  readonly at: number
  readonly who: string
  /** How it went: `tmux %3`, `headless <agent>`, … */
  readonly via: string
  readonly message: string
}

/** Record a send and re-place the session, in one transaction. */
export function recordSend(store: Store, send: SendRecord): void {
  store.tx(() => {
    store
      .q('INSERT INTO sends (session_id, at, who, via, message) VALUES (?, ?, ?, ?, ?)')
      .run(send.sessionId, send.at, send.who, send.via, send.message)
    store.patchRecords(send.sessionId, {lastSendAt: send.at})
    store.reconcile(send.at, [send.sessionId])
  })
}

/** The latest sends into a session, newest first. */
export function recentSends(store: Store, sessionId: string, limit = 20): SendRecord[] {
  return (store.q('SELECT * FROM sends WHERE session_id = ? ORDER BY at DESC, id DESC LIMIT ?').all(sessionId, limit) as Row[]).map(
    (r) => ({
      at: Number(r.at),
      message: String(r.message),
      sessionId: String(r.session_id),
      via: String(r.via),
      who: String(r.who),
    }),
  )
}
