import Database from 'better-sqlite3'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {castId} from '../../../src/core/model/ids.js'
import {EMPTY_FACTS, type SessionFacts} from '../../../src/core/model/types.js'
import {LATEST_VERSION, migrate, MIGRATIONS} from '../../../src/core/store/migrations.js'
import {Store} from '../../../src/core/store/store.js'

const NOW = Date.parse('2026-11-29T12:00:00Z')
const ctx = {device: 'box', now: NOW, runner: 'me@example.com'}
const settledFacts = (over: Partial<SessionFacts> = {}): SessionFacts => ({
  ...EMPTY_FACTS,
  cwd: '/src/app',
  lastActivityAt: NOW - 60_000,
  messages: 2,
  settled: true,
  title: 'Fix the parser',
  turnIndex: 1,
  ...over,
})

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-store-'))
})
afterEach(() => fs.rmSync(dir, {force: true, recursive: true}))

describe('opening the store', () => {
  it('creates CAST_HOME 0700 and the database files 0600, in WAL mode at the latest schema', () => {
    const home = path.join(dir, 'cast')

    const store = new Store(home)
    store.upsertFacts('claude_code', 's1', settledFacts(), null, ctx)
    const db = store.db

    expect(fs.statSync(home).mode & 0o777).toBe(0o700)
    for (const f of fs.readdirSync(home)) expect(fs.statSync(path.join(home, f)).mode & 0o777, f).toBe(0o600)
    expect(db.pragma('journal_mode', {simple: true})).toBe('wal')
    expect(db.pragma('user_version', {simple: true})).toBe(LATEST_VERSION)
    expect(db.pragma('foreign_keys', {simple: true})).toBe(1)
    store.close()
  })

  it('refuses a database written by a newer schema and changes nothing', () => {
    const home = path.join(dir, 'cast')
    new Store(home).close()
    const raw = new Database(path.join(home, 'cast.db'))
    raw.pragma(`user_version = ${LATEST_VERSION + 5}`)
    raw.close()
    const before = fs.readFileSync(path.join(home, 'cast.db'))

    expect(() => new Store(home)).toThrow(/newer cast/)
    const after = new Database(path.join(home, 'cast.db'))
    expect(after.pragma('user_version', {simple: true})).toBe(LATEST_VERSION + 5)
    after.close()
    expect(fs.readFileSync(path.join(home, 'cast.db')).equals(before)).toBe(true)
  })

  it('rolls every step of a failing migration back', () => {
    const db = new Database(path.join(dir, 'x.db'))
    const broken = [
      ...MIGRATIONS,
      {
        up: () => {
          throw new Error('boom')
        },
        version: LATEST_VERSION + 1,
      },
    ]

    expect(() => migrate(db, broken)).toThrow('boom')
    expect(db.pragma('user_version', {simple: true})).toBe(0)
    expect(db.prepare(`SELECT name FROM sqlite_master WHERE name = 'sessions'`).get()).toBeUndefined()
    db.close()
  })

  it('gives a clear error when CAST_HOME cannot be created', () => {
    const file = path.join(dir, 'not-a-dir')
    fs.writeFileSync(file, '')

    expect(() => new Store(path.join(file, 'cast'))).toThrow(/Cannot use CAST_HOME/)
  })
})

describe('the transitions log', () => {
  let store: Store
  beforeEach(() => {
    store = new Store(path.join(dir, 'cast'))
  })
  afterEach(() => store.close())

  it('writes "new" once on first sight and nothing when nothing changed', () => {
    const {id} = store.upsertFacts('claude_code', 's1', settledFacts(), null, ctx)

    store.reconcile(NOW, [id])
    store.reconcile(NOW, [id])
    store.reconcile(NOW + 1000, [id])

    const log = store.transitionsSince(0)
    expect(log).toHaveLength(1)
    expect(log[0]).toMatchObject({bucket: 'needs_input', event: 'new', from: null, reason: 'settled', sessionId: id, to: 'needs_input'})
  })

  it('writes exactly one row per change of state, reason or bucket', () => {
    const {id} = store.upsertFacts('claude_code', 's1', settledFacts({settled: false}), null, ctx)
    store.reconcile(NOW, [id])

    store.upsertFacts(
      'claude_code',
      's1',
      settledFacts({question: {at: NOW, source: {kind: 't', ref: 'x'}, text: 'Which DB?'}, settled: false}),
      null,
      ctx,
    )
    store.reconcile(NOW, [id])
    store.tx(() => {
      store.patchRecords(id, {pinned: true})
      store.reconcile(NOW, [id])
    })

    const log = store.transitionsSince(0).map((t) => [t.event, t.from, t.to, t.reason, t.bucket])
    expect(log).toEqual([
      ['new', null, 'working', 'turn_pending', 'working'],
      ['transition', 'working', 'needs_input', 'question', 'questions'],
    ])
    const seqs = store.transitionsSince(0).map((t) => t.seq)
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs)
  })

  it('logs a time-based change when the clock passes next_check_at', () => {
    const {id} = store.upsertFacts('claude_code', 's1', settledFacts({lastActivityAt: NOW, settled: false}), null, ctx)
    store.reconcile(NOW, [id])
    const due = store.nextCheckAt()!

    expect(due).toBe(NOW + 15 * 60_000)
    expect(store.dueForCheck(due - 1)).toEqual([])
    expect(store.dueForCheck(due)).toEqual([id])
    store.reconcile(due, store.dueForCheck(due))
    expect(store.transitionsSince(1)[0]).toMatchObject({from: 'working', reason: 'unresponsive', to: 'needs_input'})
  })

  it('marks a kill as one "gone" line', () => {
    const {id} = store.upsertFacts('claude_code', 's1', settledFacts(), null, ctx)
    store.reconcile(NOW, [id])

    store.tx(() => {
      store.patchRecords(id, {filedAt: NOW, filing: 'killed', killedAt: NOW})
      store.reconcile(NOW, [id])
    })

    const last = store.transitionsSince(1)
    expect(last).toHaveLength(1)
    expect(last[0]).toMatchObject({bucket: 'killed', event: 'gone', reason: 'killed', to: 'idle'})
  })

  it('folds a subagent under its parent and lets a producing child park the parent', () => {
    const parent = store.upsertFacts('claude_code', 'p', settledFacts(), null, ctx).id
    const child = store.upsertFacts('claude_code', 'p/agent-1', settledFacts({lastActivityAt: NOW, settled: false}), 'p', ctx).id

    store.reconcile(NOW, [child])

    const rows = new Map(store.loadSessions().map((r) => [r.id, r]))
    expect(rows.get(child)).toMatchObject({bucket: 'folded', parentId: parent, state: 'working'})
    expect(rows.get(parent)).toMatchObject({reason: 'child_producing', state: 'dormant'})
    expect(castId('claude_code', 'p')).toBe(parent)
  })

  it('serialises concurrent writers from separate connections without losing a write', () => {
    const a = store
    const b = new Store(path.join(dir, 'cast'))
    const ids = ['s1', 's2', 's3'].map((s) => a.upsertFacts('claude_code', s, settledFacts(), null, ctx).id)
    a.reconcile(NOW, ids)

    a.tx(() => a.patchRecords(ids[0]!, {pinned: true}))
    b.tx(() => b.patchRecords(ids[0]!, {unread: true}))
    b.tx(() => b.patchRecords(ids[1]!, {pinned: true}))

    expect(a.getRecordsRow(ids[0]!)).toMatchObject({pinned: true, unread: true})
    expect(a.getRecordsRow(ids[1]!)).toMatchObject({pinned: true})
    b.close()
  })
})

describe('the ingester lease', () => {
  it('is held by one holder at a time and taken over only when stale', () => {
    const store = new Store(path.join(dir, 'cast'))
    const stale = (l: {heartbeatAt: number}): boolean => NOW - l.heartbeatAt > 10_000

    expect(store.acquireLease('ingester', {host: 'h', pid: 1}, NOW, stale)).toBe(true)
    expect(store.acquireLease('ingester', {host: 'h', pid: 2}, NOW, stale)).toBe(false)
    expect(store.heartbeatLease('ingester', 1, NOW - 20_000)).toBe(true)
    expect(store.acquireLease('ingester', {host: 'h', pid: 2}, NOW, stale)).toBe(true)
    expect(store.getLease('ingester')).toMatchObject({pid: 2})
    expect(store.heartbeatLease('ingester', 1, NOW)).toBe(false)
    store.close()
  })
})
