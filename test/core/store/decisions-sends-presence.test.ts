/**
 * Decision cards, sends and presence (src/core/store/decisions.ts, sends.ts, presence.ts) on a real
 * store: a card puts its session in Questions until the person answers, an auto-decision stays
 * for review, the first answer wins; a send is new activity; a lapsed presence reads online.
 */
import {describe, expect, it} from 'vitest'

import {
  answerDecision,
  autoDecide,
  findDecision,
  getDecision,
  openDecisions,
  postDecision,
  waiterLeaseName,
} from '../../../src/core/store/decisions.js'
import {effectivePresence, getPresence, setPresence} from '../../../src/core/store/presence.js'
import {recentSends, recordSend} from '../../../src/core/store/sends.js'
import {HOUR, MINUTE, NOW, useStore} from './fixture.js'

const f = useStore()
const ask = (sessionId: string, askedAt = NOW, waiter?: {pid: number; host: string}) =>
  postDecision(f.store, {
    askedAt,
    askedBy: 'claude_code',
    options: [
      {effect: 'ships today', label: 'Ship'},
      {effect: 'one more day', label: 'Wait'},
    ],
    question: 'Ship the parser?',
    recommend: 0,
    sessionId,
    why: 'tests pass',
    ...(waiter ? {waiter} : {}),
  })

describe('decision cards', () => {
  it('put the session in Questions until the person answers, oldest card first', () => {
    const a = f.add('a')
    const b = f.add('b')
    const second = ask(b, NOW + 1)
    const first = ask(a, NOW)

    expect(f.row(a).bucket).toBe('questions')
    expect(f.row(a).decision?.id).toBe(first.id)
    expect(openDecisions(f.store).map((c) => c.id)).toEqual([first.id, second.id])

    expect(answerDecision(f.store, first.id, {at: NOW + MINUTE, by: 'me', choice: 1, note: null})).toBe(true)
    expect(getDecision(f.store, first.id)).toMatchObject({answer: 1, answeredAt: NOW + MINUTE, answeredBy: 'me', auto: false})
    expect(f.row(a).bucket).not.toBe('questions')
    expect(openDecisions(f.store).map((c) => c.id)).toEqual([second.id])
  })

  it('takes the first answer only', () => {
    const card = ask(f.add('a'))

    expect(answerDecision(f.store, card.id, {at: NOW + 1, by: 'me', choice: 0, note: 'go'})).toBe(true)
    expect(answerDecision(f.store, card.id, {at: NOW + 2, by: 'you', choice: 1, note: null})).toBe(false)
    expect(autoDecide(f.store, card.id, {at: NOW + 3, by: 'claude_code', choice: 1, note: 'away'})).toBe(false)
    expect(getDecision(f.store, card.id)).toMatchObject({answer: 0, answerNote: 'go', answeredBy: 'me'})
  })

  it('keeps an auto-decided card open for review, with the agent note unless the person writes one', () => {
    const a = f.add('a')
    const card = ask(a)

    expect(autoDecide(f.store, card.id, {at: NOW + 1, by: 'claude_code', choice: 0, note: 'you were away'})).toBe(true)
    expect(openDecisions(f.store).map((c) => c.id)).toEqual([card.id])
    expect(getDecision(f.store, card.id)).toMatchObject({answer: 0, answeredAt: null, auto: true})

    expect(answerDecision(f.store, card.id, {at: NOW + 2, by: 'me', choice: 0, note: null})).toBe(true)
    expect(getDecision(f.store, card.id)).toMatchObject({answerNote: 'you were away', answeredBy: 'me', auto: true})
    expect(openDecisions(f.store)).toEqual([])
  })

  it('takes the waiter lease in the same transaction as the card', () => {
    const card = ask(f.add('a'), NOW, {host: 'box', pid: 4242})

    expect(f.store.getLease(waiterLeaseName(card.id))).toMatchObject({host: 'box', pid: 4242})
  })

  it('is found by its id or a unique prefix of four characters or more', () => {
    const card = ask(f.add('a'))

    expect(findDecision(f.store, ` ${card.id.toUpperCase()} `)).toMatchObject({card: {id: card.id}, kind: 'one'})
    expect(findDecision(f.store, card.id.slice(0, 4))).toMatchObject({card: {id: card.id}, kind: 'one'})
    expect(findDecision(f.store, card.id.slice(0, 3))).toEqual({kind: 'none'})
  })
})

describe('sends', () => {
  it('are new activity: the last send time moves and the sends read back newest first', () => {
    const a = f.add('a')
    recordSend(f.store, {at: NOW + 1, message: 'first', sessionId: a, via: 'tmux %3', who: 'me'})
    recordSend(f.store, {at: NOW + 2, message: 'second', sessionId: a, via: 'tmux %3', who: 'me'})

    expect(f.row(a).records.lastSendAt).toBe(NOW + 2)
    expect(recentSends(f.store, a).map((s) => s.message)).toEqual(['second', 'first'])
    expect(recentSends(f.store, a, 1).map((s) => s.message)).toEqual(['second'])
    expect(recentSends(f.store, f.add('b'))).toEqual([])
  })

  it('clear a kill: the session leaves the killed bucket', () => {
    const a = f.add('a')
    f.store.tx(() => {
      f.store.patchRecords(a, {killedAt: NOW})
      f.store.reconcile(NOW, [a])
    })
    expect(f.row(a).bucket).toBe('killed')

    recordSend(f.store, {at: NOW + MINUTE, message: 'come back', sessionId: a, via: 'tmux %3', who: 'me'})

    expect(f.row(a).bucket).not.toBe('killed')
  })
})

describe('presence', () => {
  it('is online until set, replaced by the next setting, and online again once it lapses', () => {
    expect(effectivePresence(getPresence(f.store, 'me'), NOW)).toEqual({presence: 'online', since: null, until: null})

    setPresence(f.store, {presence: 'away', setAt: NOW, until: null, who: 'me'})
    setPresence(f.store, {presence: 'lunch', setAt: NOW + 1, until: NOW + HOUR, who: 'me'})

    expect(getPresence(f.store, 'me')).toEqual({presence: 'lunch', setAt: NOW + 1, until: NOW + HOUR, who: 'me'})
    expect(getPresence(f.store, 'you')).toBeNull()
    expect(effectivePresence(getPresence(f.store, 'me'), NOW + HOUR - 1).presence).toBe('lunch')
    expect(effectivePresence(getPresence(f.store, 'me'), NOW + HOUR)).toEqual({presence: 'online', since: NOW + HOUR, until: null})
  })
})
