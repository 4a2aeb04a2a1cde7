import {describe, expect, it} from 'vitest'

import {REASON_PRIORITY, compareAttention, earliestAfter, isQuiet, quietAt, reasonRank} from '../../../src/core/model/attention.js'
import type {AttentionRow} from '../../../src/core/model/attention.js'
import {TIME_LIMITS} from '../../../src/core/model/types.js'
import {HOUR, MIN, NOW} from './helpers.js'

const {QUIET_AFTER_MS} = TIME_LIMITS

describe('compareAttention', () => {
  it('orders approval, error, question, then the rest; the longest wait first within a reason', () => {
    const rows: (AttentionRow & {id: string})[] = [
      {id: 'settled-old', reason: 'settled', waitingSince: NOW - 9 * HOUR},
      {id: 'question-new', reason: 'question', waitingSince: NOW - MIN},
      {id: 'dead', reason: 'dead', waitingSince: NOW - 2 * HOUR},
      {id: 'approval-new', reason: 'approval', waitingSince: NOW - MIN},
      {id: 'error', reason: 'error', waitingSince: NOW - 5 * MIN},
      {id: 'question-old', reason: 'question', waitingSince: NOW - HOUR},
      {id: 'approval-unknown', reason: 'approval', waitingSince: null},
      {id: 'approval-old', reason: 'approval', waitingSince: NOW - HOUR},
    ]

    const order = [...rows].sort(compareAttention).map((row) => row.id)

    expect(order).toEqual([
      'approval-old',
      'approval-new',
      'approval-unknown',
      'error',
      'question-old',
      'question-new',
      'settled-old',
      'dead',
    ])
  })

  it.each`
    reason                | rank
    ${'approval'}         | ${0}
    ${'error'}            | ${1}
    ${'question'}         | ${2}
    ${'settled'}          | ${3}
    ${'unverified_claim'} | ${3}
  `('ranks $reason at $rank', ({rank, reason}) => {
    expect(reasonRank(reason)).toBe(rank)
  })

  it('names the priority reasons in order', () => {
    expect(REASON_PRIORITY).toEqual(['approval', 'error', 'question'])
  })

  it('ties compare equal', () => {
    expect(compareAttention({reason: 'dead', waitingSince: NOW}, {reason: 'settled', waitingSince: NOW})).toBe(0)
    expect(compareAttention({reason: 'dead', waitingSince: null}, {reason: 'dead', waitingSince: null})).toBe(0)
  })
})

describe('isQuiet and quietAt', () => {
  it.each`
    name                                    | state            | lastOutputAt                | workingSince                | quiet    | at
    ${'silent 10 min - 1 ms'}               | ${'working'}     | ${NOW - QUIET_AFTER_MS + 1} | ${NOW - HOUR}               | ${false} | ${NOW + 1}
    ${'silent 10 min'}                      | ${'working'}     | ${NOW - QUIET_AFTER_MS}     | ${NOW - HOUR}               | ${true}  | ${NOW}
    ${'silent 40 min'}                      | ${'working'}     | ${NOW - 40 * MIN}           | ${NOW - HOUR}               | ${true}  | ${NOW - 30 * MIN}
    ${'a stint that began 1 min ago'}       | ${'working'}     | ${NOW - HOUR}               | ${NOW - MIN}                | ${false} | ${NOW + 9 * MIN}
    ${'a stint that began 10 min ago'}      | ${'working'}     | ${NOW - HOUR}               | ${NOW - QUIET_AFTER_MS}     | ${true}  | ${NOW}
    ${'no output yet, stint 10 min - 1 ms'} | ${'working'}     | ${null}                     | ${NOW - QUIET_AFTER_MS + 1} | ${false} | ${NOW + 1}
    ${'no stint known, output 10 min ago'}  | ${'working'}     | ${NOW - QUIET_AFTER_MS}     | ${null}                     | ${true}  | ${NOW}
    ${'nothing to measure from'}            | ${'working'}     | ${null}                     | ${null}                     | ${false} | ${null}
    ${'not working: never quiet'}           | ${'needs_input'} | ${NOW - HOUR}               | ${NOW - HOUR}               | ${false} | ${null}
    ${'dormant: never quiet'}               | ${'dormant'}     | ${NOW - HOUR}               | ${NOW - HOUR}               | ${false} | ${null}
  `('$name', ({at, lastOutputAt, quiet, state, workingSince}) => {
    const row = {lastOutputAt, state, workingSince}

    expect(isQuiet(row, NOW)).toBe(quiet)
    expect(quietAt(row)).toBe(at)
  })
})

describe('earliestAfter', () => {
  it.each`
    times                            | expected
    ${[]}                            | ${null}
    ${[null, undefined]}             | ${null}
    ${[NOW - 1, NOW]}                | ${null}
    ${[NOW + HOUR, null, NOW + MIN]} | ${NOW + MIN}
    ${[NOW, NOW + 1]}                | ${NOW + 1}
  `('$times -> $expected', ({expected, times}) => {
    expect(earliestAfter(NOW, times)).toBe(expected)
  })
})
