import {describe, expect, it} from 'vitest'

import {decidePark, isParkRefusal, type Park, PARK_LIMIT, PARK_STALE_MS, planPark} from '../../../src/core/model/parks.js'

const NOW = Date.parse('2026-12-01T12:00:00Z')
const live = (id: string) => ({id, killed: false})
const park = (over: Partial<Park> = {}): Park => ({
  afterSeq: 10,
  ended: null,
  endedAt: null,
  madeAt: NOW,
  note: null,
  seenAt: NOW,
  sessionId: 'a',
  untilId: 'b',
  ...over,
})
const quiet = {gone: false, missing: false, rested: false}

describe('planPark', () => {
  it('parks on another session, keeping the note trimmed', () => {
    expect(planPark('a', live('b'), '  review after the migration  ', new Map(), NOW, 7)).toEqual(
      park({afterSeq: 7, note: 'review after the migration'}),
    )
  })

  it('refuses, as usage: itself, a killed session, a cycle of two and of three', () => {
    const self = planPark('a', live('a'), null, new Map(), NOW, 0)
    expect(isParkRefusal(self) && self.kind).toBe('usage')
    const killed = planPark('a', {id: 'b', killed: true}, null, new Map(), NOW, 0)
    expect(isParkRefusal(killed) && killed.message).toMatch(/killed/)
    const two = planPark('a', live('b'), null, new Map([['b', {sessionId: 'b', untilId: 'a'}]]), NOW, 0)
    expect(isParkRefusal(two) && two.message).toMatch(/cycle/)
    const chain = new Map([
      ['b', {sessionId: 'b', untilId: 'c'}],
      ['c', {sessionId: 'c', untilId: 'a'}],
    ])
    const three = planPark('a', live('b'), null, chain, NOW, 0)
    expect(isParkRefusal(three) && three.kind).toBe('usage')
  })

  it('a loop among other parks that does not reach this session is not a cycle of it', () => {
    const loop = new Map([
      ['b', {sessionId: 'b', untilId: 'c'}],
      ['c', {sessionId: 'c', untilId: 'b'}],
    ])
    expect(isParkRefusal(planPark('a', live('b'), null, loop, NOW, 0))).toBe(false)
  })

  it(`refuses a park past ${PARK_LIMIT} holding (refused), but re-making one that holds is fine`, () => {
    const full = new Map(Array.from({length: PARK_LIMIT}, (_, i) => [`s${i}`, {sessionId: `s${i}`, untilId: 'x'}]))
    const more = planPark('a', live('b'), null, full, NOW, 0)
    expect(isParkRefusal(more) && more.kind).toBe('refused')
    expect(isParkRefusal(more) && more.message).toMatch(/200/)
    expect(isParkRefusal(planPark('s3', live('b'), null, full, NOW, 0))).toBe(false)
  })
})

describe('decidePark', () => {
  it('keeps while the other works or rests without having worked since', () => {
    expect(decidePark(park(), 'stashed', quiet, NOW + 1000)).toEqual({action: 'keep'})
  })

  it('releases when the other went from working to rest after the park', () => {
    expect(decidePark(park(), 'stashed', {...quiet, rested: true}, NOW)).toEqual({action: 'release', why: 'ready'})
  })

  it('releases when the other is killed, dismissed or gone from the store', () => {
    expect(decidePark(park(), 'stashed', {...quiet, gone: true}, NOW)).toEqual({action: 'release', why: 'gone'})
    expect(decidePark(park(), 'hidden', {gone: true, missing: true, rested: false}, NOW)).toEqual({action: 'release', why: 'gone'})
  })

  it('drops a park nobody revisited in 14 days; one day less holds', () => {
    expect(decidePark(park(), 'stashed', quiet, NOW + PARK_STALE_MS)).toEqual({action: 'drop'})
    expect(decidePark(park(), 'stashed', quiet, NOW + PARK_STALE_MS - 86_400_000)).toEqual({action: 'keep'})
  })

  it('ends quietly when the stash was lifted some other way (wake, undo, a stall)', () => {
    expect(decidePark(park(), null, {...quiet, rested: true}, NOW)).toEqual({action: 'end'})
    expect(decidePark(park(), 'snoozed', quiet, NOW)).toEqual({action: 'end'})
  })
})
