/**
 * Decision cards (`cast decide`): one question, priced options, the agent's reasoning, and the
 * answer. An open card puts its session in Questions. A card the agent auto-decided while its
 * person was away keeps `answered_at` NULL: it stays in the inbox as a note until the person
 * confirms or overrides it with `cast decide answer`.
 */
import {randomBytes} from 'node:crypto'

import {type DecisionCard, decisionFromRow, type Store} from './store.js'

type Row = Record<string, unknown>

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567'

/** A short random id with a one-letter kind prefix: `d7k2xq4m`. */
export function shortRandomId(prefix: string, length = 7): string {
  const bytes = randomBytes(length)
  let out = prefix
  for (const b of bytes) out += ALPHABET[b & 31]
  return out
}

export interface NewDecision extends Pick<
  DecisionCard,
  'sessionId' | 'question' | 'options' | 'recommend' | 'why' | 'askedAt' | 'askedBy'
> {
  /**
   * The `decide --wait` process that will block on the card: its waiter lease is taken in the
   * card's own transaction, so no answer can see the card without seeing that someone waits.
   */
  readonly waiter?: {readonly pid: number; readonly host: string}
}

/** Post a card; the session moves to Questions in the same transaction. */
export function postDecision(store: Store, card: NewDecision): DecisionCard {
  const id = shortRandomId('d')
  store.tx(() => {
    store
      .q(
        `INSERT INTO decisions (id, session_id, question, options, recommend, why, asked_at, asked_by)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, card.sessionId, card.question, JSON.stringify(card.options), card.recommend, card.why, card.askedAt, card.askedBy)
    // Lease times are real time (whether the waiter is still there), not the card's clock.
    if (card.waiter) store.acquireLease(waiterLeaseName(id), card.waiter, Date.now(), () => true)
    store.reconcile(card.askedAt, [card.sessionId])
  })
  return getDecision(store, id)!
}

export function getDecision(store: Store, id: string): DecisionCard | null {
  const r = store.q('SELECT * FROM decisions WHERE id = ?').get(id) as Row | undefined
  return r ? decisionFromRow(r) : null
}

export type CardResolution = {kind: 'one'; card: DecisionCard} | {kind: 'many'; ids: string[]} | {kind: 'none'}

/** An exact card id, or a unique prefix of at least 4 characters. */
export function findDecision(store: Store, query: string): CardResolution {
  const q = query.trim().toLowerCase()
  const exact = getDecision(store, q)
  if (exact) return {card: exact, kind: 'one'}
  if (q.length < 4) return {kind: 'none'}
  const ids = (store.q(`SELECT id FROM decisions WHERE substr(id, 1, ?) = ? ORDER BY id LIMIT 11`).all(q.length, q) as Row[]).map((r) =>
    String(r.id),
  )
  if (ids.length === 1) return {card: getDecision(store, ids[0]!)!, kind: 'one'}
  return ids.length === 0 ? {kind: 'none'} : {ids, kind: 'many'}
}

/** Cards still in the inbox (unanswered, or auto-decided and not yet reviewed), oldest first. */
export function openDecisions(store: Store): DecisionCard[] {
  return (store.q('SELECT * FROM decisions WHERE answered_at IS NULL ORDER BY asked_at, id').all() as Row[]).map(decisionFromRow)
}

/** The person's answer: closes the card (also one the agent auto-decided). False when already closed. */
export function answerDecision(store: Store, id: string, answer: {choice: number; note: string | null; by: string; at: number}): boolean {
  return store.tx(() => {
    const card = getDecision(store, id)
    if (!card || card.answeredAt !== null) return false
    // A review of an auto-decision keeps the agent's note unless the person wrote one.
    const note = answer.note ?? (card.auto ? card.answerNote : null)
    store
      .q('UPDATE decisions SET answer = ?, answer_note = ?, answered_at = ?, answered_by = ? WHERE id = ? AND answered_at IS NULL')
      .run(answer.choice, note, answer.at, answer.by, id)
    store.reconcile(answer.at, [card.sessionId])
    return true
  })
}

/**
 * The agent decides for an away person: the answer is set for the waiting agent, the card stays
 * in the inbox with the note until the person reviews it. False when someone answered first.
 */
export function autoDecide(store: Store, id: string, decision: {choice: number; note: string; by: string; at: number}): boolean {
  return store.tx(() => {
    const r = store
      .q(
        'UPDATE decisions SET answer = ?, answer_note = ?, answered_by = ?, auto = 1 WHERE id = ? AND answer IS NULL AND answered_at IS NULL',
      )
      .run(decision.choice, decision.note, decision.by, id)
    if (r.changes === 0) return false
    const card = getDecision(store, id)!
    store.reconcile(decision.at, [card.sessionId])
    return true
  })
}

/** The lease a `decide --wait` holds while it blocks, so an answer is not also typed into the session. */
export function waiterLeaseName(cardId: string): string {
  return `decide-wait:${cardId}`
}
