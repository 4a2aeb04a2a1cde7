/**
 * The store's side of holds and parks, on a real SQLite store: usage summed over a subagent tree
 * (store/holds.ts), and parks decided in the reconcile pass (store/parks.ts): a release when the
 * other session is killed, a stale park dropped on the next load, a lifted stash ending its park.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {castId} from '../../../src/core/model/ids.js'
import {EMPTY_HOLDS} from '../../../src/core/model/holds.js'
import {PARK_STALE_MS as STALE} from '../../../src/core/model/parks.js'
import {EMPTY_FACTS, type SessionFacts, type SessionHolds} from '../../../src/core/model/types.js'
import {loadParks, savePark} from '../../../src/core/store/parks.js'
import {Store} from '../../../src/core/store/store.js'
import {sweepSnoozes} from '../../../src/core/store/triage.js'

const NOW = Date.parse('2026-12-01T12:00:00Z')
const ctx = {device: 'box', now: NOW, runner: 'me@example.com'}
const facts = (h: Partial<SessionHolds> | null = null): SessionFacts => ({
  ...EMPTY_FACTS,
  cwd: '/src/app',
  lastActivityAt: NOW - 60_000,
  messages: 2,
  settled: true,
  title: 'Fix the parser',
  turnIndex: 1,
  ...(h === null ? {} : {holds: {...EMPTY_HOLDS, ...h}}),
})

let dir: string
let store: Store
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-parks-'))
  store = new Store(path.join(dir, 'cast'))
})
afterEach(() => {
  store.close()
  fs.rmSync(dir, {force: true, recursive: true})
})

const id = (native: string): string => castId('claude_code', native)
const add = (native: string, h: Partial<SessionHolds> | null = null, parent: string | null = null): string => {
  store.upsertFacts('claude_code', native, facts(h), parent, ctx)
  store.reconcile(NOW, [id(native)])
  return id(native)
}

function parkAOnB(now = NOW): {a: string; b: string} {
  const a = add('a')
  const b = add('b')
  store.tx(() => {
    store.patchRecords(a, {filedAt: now, filing: 'stashed'})
    store.reconcile(now, [a])
    savePark(store, {
      afterSeq: store.lastSeq(),
      endedAt: null,
      ended: null,
      madeAt: now,
      note: 'after b',
      seenAt: now,
      sessionId: a,
      untilId: b,
    })
  })
  return {a, b}
}

const lastTransition = (sid: string) =>
  store
    .transitionsSince(0)
    .filter((t) => t.sessionId === sid)
    .at(-1)

describe('holds over a subagent tree', () => {
  it('a parent row carries its own usage plus its children and grandchildren', () => {
    const root = add('root', {changed: [{count: 1, path: '/x'}], models: ['m1'], usage: {cacheRead: 1, cacheWrite: 1, input: 1, output: 1}})
    add('kid', {changed: [{count: 2, path: '/x'}], models: ['m2'], usage: {cacheRead: 0, cacheWrite: 0, input: 10, output: 10}}, 'root')
    add('grandkid', {unknownUsage: 3, usage: {cacheRead: 0, cacheWrite: 0, input: 100, output: 100}}, 'kid')
    const row = store.loadSessions([root])[0]!
    expect(row.tree?.usage).toEqual({cacheRead: 1, cacheWrite: 1, input: 111, output: 111})
    expect(row.tree?.changed).toEqual([{count: 3, path: '/x'}])
    expect(row.tree?.unknownUsage).toBe(3)
    expect(row.tree?.sessions).toBe(3)
  })

  it('a session without a holds record reads usage unknown (null), not zero', () => {
    const row = store.loadSessions([add('plain')])[0]!
    expect(row.tree?.usage).toBeNull()
  })
})

describe('parks in the reconcile pass', () => {
  it('the other killed: the stash lifts with a park_released transition, the park ends "gone"', () => {
    const {a, b} = parkAOnB()
    store.tx(() => {
      store.patchRecords(b, {filedAt: NOW + 1000, filing: 'killed', killedAt: NOW + 1000})
      store.reconcile(NOW + 1000, [b])
    })
    expect(lastTransition(a)).toMatchObject({reason: 'park_released'})
    expect(store.loadSessions([a])[0]!.records.filing).toBeNull()
    expect(loadParks(store, null).get(a)).toMatchObject({ended: 'gone', endedAt: NOW + 1000, note: 'after b'})
  })

  it('nobody revisited it in 14 days: the next load drops it, no release transition', () => {
    const {a} = parkAOnB()
    sweepSnoozes(store, NOW + STALE - 1000)
    expect(store.loadSessions([a])[0]!.records.filing).toBe('stashed')
    sweepSnoozes(store, NOW + STALE)
    expect(store.loadSessions([a])[0]!.records.filing).toBeNull()
    expect(loadParks(store, null).get(a)).toMatchObject({ended: 'stale'})
    expect(lastTransition(a)?.reason).not.toBe('park_released')
  })

  it('a stash lifted by hand ends the park quietly; ended parks are deleted 14 days later', () => {
    const {a} = parkAOnB()
    store.tx(() => {
      store.patchRecords(a, {filedAt: null, filing: null})
      store.reconcile(NOW + 5000, [a])
    })
    expect(loadParks(store, null).get(a)).toMatchObject({ended: 'lifted'})
    sweepSnoozes(store, NOW + 5000 + STALE + 1)
    expect(loadParks(store, null).has(a)).toBe(false)
  })
})
