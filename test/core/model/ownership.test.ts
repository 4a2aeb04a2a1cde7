import {describe, expect, it} from 'vitest'

import {inInbox, isAssignedAwayFromOwnerSet, readOnlyLine} from '../../../src/core/model/ownership.js'
import {TIME_LIMITS} from '../../../src/core/model/types.js'
import {NOW} from './helpers.js'

const ME = 'ana@example.com'
const BOB = 'bob@example.com'
const WEEK = TIME_LIMITS.RECENCY_WINDOW_MS
const DAY = 24 * 60 * 60 * 1000

describe('isAssignedAwayFromOwnerSet', () => {
  it.each`
    owners                     | assignedAway
    ${[]}                      | ${false}
    ${[ME]}                    | ${false}
    ${[BOB, ME]}               | ${false}
    ${['  Ana@Example.COM ']}  | ${false}
    ${[BOB]}                   | ${true}
    ${[BOB, 'cy@example.com']} | ${true}
  `('$owners -> $assignedAway', ({assignedAway, owners}) => {
    expect(isAssignedAwayFromOwnerSet(owners, ME)).toBe(assignedAway)
  })
})

describe('inInbox', () => {
  it.each`
    name                                      | owners   | runner  | lastActivityAt    | recencyMs    | all      | expected
    ${'owned by me, six weeks old'}           | ${[ME]}  | ${BOB}  | ${NOW - 42 * DAY} | ${undefined} | ${false} | ${true}
    ${'owned by me, never active'}            | ${[ME]}  | ${null} | ${null}           | ${undefined} | ${false} | ${true}
    ${'assigned away though I run it'}        | ${[BOB]} | ${ME}   | ${NOW}            | ${undefined} | ${false} | ${false}
    ${'assigned away, even with --all'}       | ${[BOB]} | ${ME}   | ${NOW}            | ${undefined} | ${true}  | ${false}
    ${'unowned, I run it, recent'}            | ${[]}    | ${ME}   | ${NOW - DAY}      | ${undefined} | ${false} | ${true}
    ${'unowned, I run it, exactly 7 days'}    | ${[]}    | ${ME}   | ${NOW - WEEK}     | ${undefined} | ${false} | ${true}
    ${'unowned, I run it, 7 days + 1 ms'}     | ${[]}    | ${ME}   | ${NOW - WEEK - 1} | ${undefined} | ${false} | ${false}
    ${'unowned, old, --all'}                  | ${[]}    | ${ME}   | ${NOW - 90 * DAY} | ${undefined} | ${true}  | ${true}
    ${'unowned, custom window'}               | ${[]}    | ${ME}   | ${NOW - 2 * DAY}  | ${DAY}       | ${false} | ${false}
    ${'unowned, no activity time'}            | ${[]}    | ${ME}   | ${null}           | ${undefined} | ${false} | ${false}
    ${'unowned, runner unknown counts as me'} | ${[]}    | ${null} | ${NOW - DAY}      | ${undefined} | ${false} | ${true}
    ${'unowned, someone else runs it'}        | ${[]}    | ${BOB}  | ${NOW}            | ${undefined} | ${false} | ${false}
    ${'unowned, someone else runs it, --all'} | ${[]}    | ${BOB}  | ${NOW}            | ${undefined} | ${true}  | ${false}
  `('$name -> $expected', ({all, expected, lastActivityAt, owners, recencyMs, runner}) => {
    expect(inInbox({all, lastActivityAt, me: ME, now: NOW, owners, recencyMs, runner})).toBe(expected)
  })
})

describe('readOnlyLine (a teammate’s session in cast web --team and cast sessions --team)', () => {
  it.each`
    name                                    | owners                       | runner               | expected
    ${'I own it'}                           | ${[BOB, ' ANA@example.com']} | ${BOB}               | ${null}
    ${'I run it (another machine of mine)'} | ${[]}                        | ${'Ana@Example.com'} | ${null}
    ${'unowned, Bob runs it'}               | ${[]}                        | ${BOB}               | ${'read-only: owned by bob@example.com on host-b'}
    ${'owned by others, I run it not'}      | ${[BOB, 'cy@example.com']}   | ${'cy@example.com'}  | ${'read-only: owned by bob@example.com, cy@example.com on host-b'}
    ${'no runner known'}                    | ${[]}                        | ${null}              | ${'read-only: owned by nobody known on host-b'}
  `('$name -> $expected', ({expected, owners, runner}) => {
    expect(readOnlyLine({device: 'host-b', owners, runner}, ME)).toBe(expected)
  })
})
