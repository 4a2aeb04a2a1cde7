/**
 * The OpenCode adapter under the real ingest engine and store: the database and lingering
 * storage/ files together, subagents folded, and a locked, corrupt, missing or half-written source
 * that never breaks the listing.
 */
import Database from 'better-sqlite3'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {clearOpencodeCache, opencode} from '../../../src/adapters/opencode/index.js'
import {Ingester} from '../../../src/core/ingest/engine.js'
import {Store} from '../../../src/core/store/store.js'
import {DATA, buildDb, insertSessions, t, text} from './helpers.js'
import {ID, SCENARIOS} from './scenarios.js'

let dir: string
let data: string
let store: Store
let ingester: Ingester
const clock = t(1200)

beforeEach(() => {
  clearOpencodeCache()
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-opencode-'))
  data = path.join(dir, 'xdg')
  store = new Store(path.join(dir, 'cast'))
  ingester = new Ingester(
    store,
    [opencode],
    {env: {XDG_DATA_HOME: data}, home: path.join(dir, 'home')},
    {clock: () => clock, device: 'box', me: 'me@example.com'},
  )
})
afterEach(() => {
  store.close()
  fs.rmSync(dir, {force: true, recursive: true})
})

const dbFile = (): string => path.join(data, 'opencode', 'opencode.db')
const rows = () => store.loadSessions()
const row = (nativeId: string) => rows().find((r) => r.nativeId === nativeId)
const copyStorage = (): void => fs.cpSync(path.join(DATA, 'opencode'), path.join(data, 'opencode'), {recursive: true})
const pick = (...ids: string[]) => SCENARIOS.filter((s) => ids.includes(s.id))

describe('OpenCode through the ingest engine', () => {
  it('lists database sessions in the right state, with the child folded under its parent', () => {
    buildDb(dbFile(), SCENARIOS)

    ingester.sync()

    expect(row(ID.settled)).toMatchObject({agent: 'opencode', reason: 'settled', state: 'needs_input'})
    expect(row(ID.question)).toMatchObject({bucket: 'questions', reason: 'question', state: 'needs_input'})
    expect(row(ID.error)).toMatchObject({reason: 'error', state: 'needs_input'})
    expect(row(ID.aborted)).toMatchObject({reason: 'settled', state: 'needs_input'})
    expect(row(ID.parent)).toMatchObject({reason: 'turn_pending', state: 'working'})
    // A tool running for 16 minutes with nothing to show the process is alive: past the turn-pending TTL.
    expect(row(ID.toolRunning)).toMatchObject({reason: 'unresponsive', state: 'needs_input'})
    expect(row(ID.compacting)).toMatchObject({state: 'working'})
    expect(row(ID.child)).toMatchObject({bucket: 'folded', parentId: row(ID.parent)!.id})
    expect(row(ID.parent)!.childIds).toEqual([row(ID.child)!.id])
  })

  it('a session both in the database and in lingering storage/ files reads from the database', () => {
    copyStorage()
    const settled = 'ses_s1settledaaaaaaaaaaaaaaaa'
    buildDb(dbFile(), [
      {
        created: t(0),
        directory: '/home/dev/projects/api',
        id: settled,
        messages: [{created: t(1100), id: 'msg_new', parts: [text('prt_new', 'And document it', t(1100))], role: 'user'}],
        title: 'Tighten the rate limiter',
      },
    ])

    ingester.sync()

    expect(rows().filter((r) => r.nativeId === settled)).toHaveLength(1)
    expect(row(settled)).toMatchObject({reason: 'turn_pending', state: 'working'})
    expect(row(settled)!.facts.sources.settled?.kind).toBe('sqlite')
    // Sessions only the files know are still listed.
    expect(row('ses_s3erroraaaaaaaaaaaaaaaaaa')).toMatchObject({reason: 'error'})
  })

  it('a change to the database is read on the next sync', () => {
    buildDb(dbFile(), pick(ID.settled))
    ingester.sync()
    expect(row(ID.settled)!.state).toBe('needs_input')

    const db = new Database(dbFile())
    insertSessions(db, [
      {
        ...pick(ID.settled)[0]!,
        messages: [{created: t(1150), id: 'msg_a09', parts: [text('prt_a19', 'One more thing', t(1150))], role: 'user'}],
        updated: t(1150),
      },
    ])
    db.close()
    const stats = ingester.sync()

    expect(stats.read).toBe(1)
    expect(row(ID.settled)).toMatchObject({reason: 'turn_pending', state: 'working'})
  })

  it('a write still in the -wal file (OpenCode running, no checkpoint yet) is read', () => {
    buildDb(dbFile(), pick(ID.settled))
    ingester.sync()
    const db = new Database(dbFile())
    try {
      db.pragma('wal_autocheckpoint = 0')
      insertSessions(db, [{...pick(ID.settled)[0]!, messages: [{created: t(1150), id: 'msg_a09', role: 'user'}], updated: t(1150)}])
      ingester.sync()
      expect(row(ID.settled)!.state).toBe('working')
    } finally {
      db.close()
    }
  })

  it('a locked database is counted and skipped, and read once it changes', () => {
    copyStorage()
    buildDb(dbFile(), pick(ID.settled))
    const db = new Database(dbFile())
    db.pragma('journal_mode = DELETE')
    db.exec('BEGIN EXCLUSIVE')
    db.prepare(`UPDATE session SET title = 'Fix the login redirect loop (v2)' WHERE id = ?`).run(ID.settled)

    const locked = ingester.sync()
    expect(locked.parseErrors).toBe(1)
    expect(row(ID.settled)).toBeUndefined()
    expect(row('ses_s1settledaaaaaaaaaaaaaaaa')).toMatchObject({state: 'needs_input'})

    db.exec('COMMIT')
    db.close()
    ingester.sync()
    expect(row(ID.settled)!.facts.title).toBe('Fix the login redirect loop (v2)')
  })

  it('a file that is not a database, or an empty one, is counted and never fatal', () => {
    fs.mkdirSync(path.dirname(dbFile()), {recursive: true})
    fs.writeFileSync(dbFile(), 'this is not a database, just bytes that happen to sit here\n'.repeat(100))
    fs.writeFileSync(path.join(data, 'opencode', 'opencode-dev.db'), '')
    copyStorage()

    const stats = ingester.sync()

    expect(stats.parseErrors).toBe(1)
    expect(rows().length).toBe(6)
  })

  it('no OpenCode data at all, or a database that disappears, does not fail', () => {
    expect(() => ingester.sync()).not.toThrow()
    buildDb(dbFile(), pick(ID.settled, ID.error))
    ingester.sync()
    expect(rows()).toHaveLength(2)

    fs.rmSync(dbFile())
    expect(() => ingester.sync()).not.toThrow()
  })

  it('a storage file caught mid-write is counted; once rewritten it is read', () => {
    copyStorage()
    const file = path.join(data, 'opencode', 'storage', 'message', 'ses_s2workingaaaaaaaaaaaaaaaa', 'msg_s2c.json')
    const whole = JSON.stringify({
      id: 'msg_s2c',
      role: 'assistant',
      sessionID: 'ses_s2workingaaaaaaaaaaaaaaaa',
      time: {completed: t(900), created: t(800)},
      finish: 'stop',
      modelID: 'claude-sonnet-4-5',
      providerID: 'anthropic',
    })
    fs.writeFileSync(file, whole.slice(0, 60))

    const half = ingester.sync()
    expect(half.parseErrors).toBe(1)
    expect(rows()).toHaveLength(6)

    fs.writeFileSync(file, whole + '\n')
    const part = path.join(data, 'opencode', 'storage', 'part', 'msg_s2b', 'prt_s2b_3.json')
    const p = JSON.parse(fs.readFileSync(part, 'utf8'))
    p.state = {...p.state, status: 'completed', output: 'p95 120ms', time: {start: p.state.time.start, end: t(850)}}
    fs.writeFileSync(part, JSON.stringify(p))
    ingester.sync()
    expect(row('ses_s2workingaaaaaaaaaaaaaaaa')).toMatchObject({reason: 'settled', state: 'needs_input'})
  })
})
