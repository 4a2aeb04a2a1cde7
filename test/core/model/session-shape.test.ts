/**
 * What a session's loaded rows mean (src/core/model/session-shape.ts): the delivered flag, the
 * open decision, and the records the classifier reads.
 */
import {describe, expect, it} from 'vitest'

import {
  type DecisionCard,
  isDelivered,
  openDecisionBySession,
  shapeRecords,
  type StoredRecords,
} from '../../../src/core/model/session-shape.js'
import {EMPTY_RECORDS} from '../../../src/core/model/types.js'
import {HOUR, MIN, NOW} from './helpers.js'

const STORED: StoredRecords = {
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

function card(overrides: Partial<DecisionCard>): DecisionCard {
  return {
    answer: null,
    answerNote: null,
    answeredAt: null,
    answeredBy: null,
    askedAt: NOW - HOUR,
    askedBy: 'agent',
    auto: false,
    id: 'd1',
    options: [],
    question: 'Which?',
    recommend: null,
    sessionId: 's1',
    why: null,
    ...overrides,
  }
}

describe('isDelivered: a delivered verdict holds for the turn it judged only', () => {
  it.each<[number | null, number, boolean]>([
    [3, 3, true],
    [2, 3, false],
    [4, 3, false],
    [null, 3, false],
    [0, 0, true],
  ])('verdict for turn %s at turn %s: %s', (turn, current, delivered) => {
    expect(isDelivered(turn, current)).toBe(delivered)
  })
})

describe('shapeRecords', () => {
  it('no records row and nothing joined: the empty records', () => {
    expect(shapeRecords(null, {openDecision: null, owners: []}, 3)).toEqual(EMPTY_RECORDS)
  })

  it('carries the columns, the owners and the armed schedules', () => {
    const r = shapeRecords(
      {...STORED, filedAt: NOW - HOUR, filing: 'stashed', pinned: true, snoozedUntil: NOW + HOUR, unread: true},
      {openDecision: null, owners: ['ana'], triggers: {oneShot: 1, recurring: 2}},
      3,
    )
    expect(r).toMatchObject({
      filedAt: NOW - HOUR,
      filing: 'stashed',
      owners: ['ana'],
      pinned: true,
      snoozedUntil: NOW + HOUR,
      triggers: {oneShot: 1, recurring: 2},
      unread: true,
    })
  })

  it('a verdict comes with its time (0 when the time is missing); none without a verdict', () => {
    expect(shapeRecords({...STORED, verdict: 'done', verdictAt: NOW - MIN}, {openDecision: null, owners: []}, 3).verdict).toEqual({
      at: NOW - MIN,
      verdict: 'done',
    })
    expect(shapeRecords({...STORED, verdict: 'dormant'}, {openDecision: null, owners: []}, 3).verdict).toEqual({at: 0, verdict: 'dormant'})
    expect(shapeRecords({...STORED, verdictAt: NOW}, {openDecision: null, owners: []}, 3).verdict).toBeNull()
  })

  it('delivered at the current turn only', () => {
    expect(shapeRecords({...STORED, deliveredTurn: 3}, {openDecision: null, owners: []}, 3).delivered).toBe(true)
    expect(shapeRecords({...STORED, deliveredTurn: 3}, {openDecision: null, owners: []}, 4).delivered).toBe(false)
  })

  it('an open card: openDecision and when it was asked', () => {
    const r = shapeRecords(null, {openDecision: card({askedAt: NOW - 5 * MIN}), owners: []}, 3)
    expect(r).toMatchObject({openDecision: true, openDecisionAt: NOW - 5 * MIN})
  })
})

describe('openDecisionBySession', () => {
  it('each session shows the card asked first; a tie keeps the first given', () => {
    const a = card({askedAt: NOW - 5 * MIN, id: 'da', sessionId: 's1'})
    const b = card({askedAt: NOW - HOUR, id: 'db', sessionId: 's1'})
    const c = card({askedAt: NOW - HOUR, id: 'dc', sessionId: 's1'})
    const d = card({id: 'dd', sessionId: 's2'})
    const open = openDecisionBySession([a, b, c, d])
    expect([...open].map(([s, k]) => [s, k.id])).toEqual([
      ['s1', 'db'],
      ['s2', 'dd'],
    ])
  })

  it('an answered card is not open; an auto-decided one not yet reviewed is', () => {
    const answered = card({answer: 0, answeredAt: NOW - MIN, askedAt: NOW - 2 * HOUR, id: 'dx'})
    const auto = card({answer: 1, askedAt: NOW - HOUR, auto: true, id: 'dy'})
    expect(openDecisionBySession([answered, auto]).get('s1')?.id).toBe('dy')
    expect(openDecisionBySession([answered]).size).toBe(0)
  })
})
