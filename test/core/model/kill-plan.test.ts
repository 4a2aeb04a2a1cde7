/**
 * The decision half of `cast kill` (src/core/model/kill-plan.ts), table by table: which claims may
 * be signalled, which may not and why. What /proc says is given, so each case is exact.
 */
import {describe, expect, it} from 'vitest'

import {
  claimRefusal,
  identityRefusal,
  killedElsewhere,
  planSessionKill,
  signalTargets,
  START_MATCH_MS,
  STARTUP_ALLOWANCE_MS,
  treeOf,
} from '../../../src/core/model/kill-plan.js'

const T = Date.parse('2026-12-01T10:00:00Z')

describe('claimRefusal: what is refused before any process is looked at', () => {
  it.each([
    [0, T, /knows no process id/],
    [-4, T, /knows no process id/],
    [1.5, T, /knows no process id/],
    [1, T, /pid 1 \(init\), which cast never signals/],
    [4242, null, /records no start time/],
    [4242, undefined, /records no start time/],
    [4242, Number.NaN, /records no start time/],
  ])('pid %s started %s: refused', (pid, startedAt, why) => {
    expect(claimRefusal(pid, startedAt)).toMatch(why)
  })

  it('a pid above 1 with a start time goes on to be looked at', () => {
    expect(claimRefusal(4242, T)).toBeNull()
  })
})

describe('identityRefusal: the process seen is the one claimed', () => {
  it.each([
    [{running: false, startedAt: T}, 'pid 7 is not running'],
    [{running: true, startedAt: null}, 'the start time of pid 7 cannot be read'],
    [{running: true, startedAt: T + START_MATCH_MS + 1}, /another process has that pid now/],
    [{running: true, startedAt: T - STARTUP_ALLOWANCE_MS - 1}, /another process has that pid now/],
  ])('%o: refused', (seen, why) => {
    expect(identityRefusal(7, T, seen)).toMatch(why)
  })

  it.each([T, T + START_MATCH_MS, T - START_MATCH_MS])('started at %s (within the match window): verified', (at) => {
    expect(identityRefusal(7, T, {running: true, startedAt: at})).toBeNull()
  })

  // An agent that wrote its own start time late (a loaded machine, a slow load): the claim is
  // later than the kernel's start. Seen in CI: Claude Code's registry 10.3 s after /proc's start.
  it.each([T - START_MATCH_MS - 1, T - 11_000, T - STARTUP_ALLOWANCE_MS])('started at %s, before a late-written claim: verified', (at) => {
    expect(identityRefusal(7, T, {running: true, startedAt: at})).toBeNull()
  })
})

describe('signalTargets: the verified process and its descendants, never cast’s own line', () => {
  // 10 → 11 → 12, 10 → 13; cast is 12 (its ancestors 11 and 10 are then ancestors too in real life,
  // but the table tests each rule alone).
  const children = new Map([
    [10, [11, 13]],
    [11, [12]],
    [1, [10]],
  ])

  it('walks the descendants breadth first', () => {
    expect(treeOf(10, children)).toEqual([10, 11, 13, 12])
    expect(treeOf(10, children, 2)).toEqual([10, 11, 13])
  })

  it('spares cast and its ancestors', () => {
    expect(signalTargets(10, new Set([12]), children)).toEqual({refusal: null, targets: {spared: [12], targets: [10, 11, 13]}})
  })

  it('refuses cast itself or an ancestor, and a missing process table', () => {
    expect(signalTargets(10, new Set([10, 1]), children)).toEqual({refusal: 'pid 10 is cast itself or one of its ancestors', targets: null})
    expect(signalTargets(10, new Set(), null)).toEqual({refusal: 'no /proc: the process tree cannot be read', targets: null})
  })

  it('never signals pid 1 even when it shows up under the process', () => {
    expect(signalTargets(10, new Set(), new Map([[10, [1, 20]]])).targets?.targets).toEqual([10, 20])
  })
})

describe('planSessionKill: which of a session’s claims are signalled', () => {
  const alive = (pid: number) => ({alive: true, pid})
  it.each([
    {
      name: 'one verified claim: planned',
      process: alive(10),
      verified: [{pid: 10, refusal: null, targets: [10, 11]}],
      before: [],
      planned: [0],
      refused: [],
    },
    {
      name: 'a second claim inside the first one’s tree: not planned twice, not refused',
      process: alive(10),
      verified: [
        {pid: 10, refusal: null, targets: [10, 11]},
        {pid: 11, refusal: null, targets: [11]},
      ],
      before: [],
      planned: [0],
      refused: [],
    },
    {
      name: 'a claim whose termination was refused: refused with why',
      process: alive(10),
      verified: [{pid: 10, refusal: 'pid 10 is cast itself or one of its ancestors', targets: null}],
      before: [],
      planned: [],
      refused: [{pid: 10, why: 'pid 10 is cast itself or one of its ancestors'}],
    },
    {
      name: 'a live process no claim backs: refused, after the claims refused before',
      process: alive(30),
      verified: [],
      before: [{pid: 7, why: 'pid 7 is not running'}],
      planned: [],
      refused: [
        {pid: 7, why: 'pid 7 is not running'},
        {pid: 30, why: 'no claim with a start time names pid 30, so its identity cannot be verified'},
      ],
    },
    {
      name: 'a live process already refused by a claim: named once',
      process: alive(7),
      verified: [],
      before: [{pid: 7, why: 'the claim on pid 7 records no start time, so its identity cannot be verified'}],
      planned: [],
      refused: [{pid: 7, why: 'the claim on pid 7 records no start time, so its identity cannot be verified'}],
    },
    {
      name: 'a live process inside a planned tree: nothing more to say',
      process: alive(11),
      verified: [{pid: 10, refusal: null, targets: [10, 11]}],
      before: [],
      planned: [0],
      refused: [],
    },
    {
      name: 'no live process, no claims: nothing planned or refused (it is only filed)',
      process: {alive: false, pid: 10},
      verified: [],
      before: [],
      planned: [],
      refused: [],
    },
  ])('$name', ({before, planned, process, refused, verified}) => {
    expect(planSessionKill({device: null, process}, verified, before)).toEqual({planned, refused})
  })
})

describe('killedElsewhere: a session seen on another machine is not planned here', () => {
  it.each([
    [null, true, null],
    ['box', true, null],
    ['laptop', true, {device: 'laptop'}],
    ['laptop', false, {device: null}],
  ])('seen on %s, alive %s', (device, isAlive, expected) => {
    expect(killedElsewhere({device, process: {alive: isAlive, pid: 10}}, 'box')).toEqual(expected)
  })
})
