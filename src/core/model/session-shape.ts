/**
 * What a session's loaded rows mean: the store reads the records row, the owners, the armed
 * schedules and the open decision cards as they are stored; this decides what the classifier,
 * placement and every listing see of them (the turn a settle verdict was for still being the
 * current one, which card is the session's open decision, what counts as having one). Pure.
 */
import type {Declaration, Filing, SessionRecords, Verdict} from './types.js'

/** A decision card (`cast decide`) as stored. */
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

/** The records row's columns, typed; null when the session has no records row (or the column is empty). */
export interface StoredRecords {
  readonly declaration: Declaration | null
  readonly deferredAt: number | null
  readonly deliveredTurn: number | null
  readonly filedAt: number | null
  readonly filing: Filing | null
  readonly killedAt: number | null
  readonly lastSendAt: number | null
  readonly pinned: boolean
  readonly snoozedUntil: number | null
  readonly unread: boolean
  readonly verdict: Verdict | null
  readonly verdictAt: number | null
}

/** What the store joins to a records row: the owners, the armed schedules, the open card. */
export interface RecordsJoins {
  readonly owners: readonly string[]
  readonly triggers?: {readonly oneShot: number; readonly recurring: number}
  readonly openDecision: DecisionCard | null
}

/** A settle verdict of "delivered" counts only for the turn it judged: a new turn makes it stale. */
export function isDelivered(deliveredTurn: number | null, turnIndex: number): boolean {
  return deliveredTurn !== null && deliveredTurn === turnIndex
}

/** The records of a session with no records row (what each column holds before one exists). */
export const NO_RECORDS: StoredRecords = {
  declaration: null,
  deferredAt: null,
  deliveredTurn: null,
  filedAt: null,
  filing: null,
  killedAt: null,
  lastSendAt: null,
  pinned: false,
  snoozedUntil: null,
  unread: false,
  verdict: null,
  verdictAt: null,
}

/** A session's records as the model reads them, at its current turn (`turnIndex`). */
export function shapeRecords(stored: StoredRecords | null, joins: RecordsJoins, turnIndex: number): SessionRecords {
  const r = stored ?? NO_RECORDS
  const openDecisionAt = joins.openDecision?.askedAt ?? null
  return {
    declaration: r.declaration,
    deferredAt: r.deferredAt,
    delivered: isDelivered(r.deliveredTurn, turnIndex),
    filedAt: r.filedAt,
    filing: r.filing,
    killedAt: r.killedAt,
    lastSendAt: r.lastSendAt,
    openDecision: openDecisionAt !== null,
    openDecisionAt,
    owners: joins.owners,
    pinned: r.pinned,
    snoozedUntil: r.snoozedUntil,
    triggers: joins.triggers ?? {oneShot: 0, recurring: 0},
    unread: r.unread,
    verdict: r.verdict ? {at: r.verdictAt ?? 0, verdict: r.verdict} : null,
  }
}

/**
 * Each session's open decision: of its cards still in the inbox (unanswered, or auto-decided and
 * not yet reviewed), the one asked first; on a tie, the first given.
 */
export function openDecisionBySession(open: Iterable<DecisionCard>): Map<string, DecisionCard> {
  const bySession = new Map<string, DecisionCard>()
  for (const card of open) {
    if (card.answeredAt !== null) continue
    const prev = bySession.get(card.sessionId)
    if (!prev || prev.askedAt > card.askedAt) bySession.set(card.sessionId, card)
  }

  return bySession
}
