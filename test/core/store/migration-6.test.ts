/**
 * Migration 6 (issue 16 point 2): three indexes so a no-op sync and the inbox read what they
 * compare, not the big columns beside it: contributions_claims (the process claims, instead of a
 * LIKE scan over every contribution), files_marks (every file's mark without the parser states)
 * and sessions_inbox (whether a row can be in the inbox, without the facts).
 *
 * A store written at schema 5 is migrated; each query's answer is the one the schema-5 query
 * gave (the queries as they were before the migration, kept here), before and after writes; and
 * SQLite really answers through the index.
 */
import Database from 'better-sqlite3'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {EMPTY_FACTS, type FactSource, type SessionFacts} from '../../../src/core/model/types.js'
import {loadFileMarks} from '../../../src/core/store/file-marks.js'
import {inboxCandidates} from '../../../src/core/store/listing.js'
import {LATEST_VERSION, migrate, MIGRATIONS} from '../../../src/core/store/migrations.js'
import {Store} from '../../../src/core/store/store.js'

const NOW = Date.parse('2026-11-29T12:00:00Z')
const DAY = 86_400_000
const ctx = {device: 'box', now: NOW, runner: 'me@example.com'}

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-mig6-'))
})
afterEach(() => fs.rmSync(dir, {force: true, recursive: true}))

// The schema-5 queries, word for word as they stood before migration 6.
function claimsV5(db: Database.Database): unknown[] {
  return db.prepare(`SELECT agent, native_id, data, path FROM contributions WHERE data LIKE '%"processClaim"%'`).all()
}

function marksV5(db: Database.Database, heldAgents: readonly string[]): Map<string, Record<string, unknown>> {
  const held =
    heldAgents.length > 0
      ? `CASE WHEN agent IN (SELECT value FROM json_each(@held)) THEN coalesce(instr(state, '"__holder":'), 0) ELSE 0 END`
      : '0'
  const rows = db
    .prepare(
      `SELECT path, agent, kind, dev, ino, size, mtime_ms, offset, parse_errors, read_at, ${held}, CASE WHEN offset < size THEN state END FROM files`,
    )
    .raw(true)
    .all(heldAgents.length > 0 ? {held: JSON.stringify(heldAgents)} : {}) as unknown[][]
  return new Map(
    rows.map((r) => {
      const tail = Number(r[7]) < Number(r[5])
      return [
        String(r[0]),
        {
          agent: String(r[1]),
          dev: Number(r[3]),
          held: Number(r[10]) > 0,
          ino: Number(r[4]),
          kind: String(r[2]),
          mtimeMs: Number(r[6]),
          offset: Number(r[7]),
          parseErrors: Number(r[8]),
          path: String(r[0]),
          readAt: Number(r[9]),
          size: Number(r[5]),
          state: tail ? ((r[11] as string | null) ?? null) : null,
          stateLoaded: tail,
        },
      ]
    }),
  )
}

const CANDIDATE_V5 = `(coalesce(last_activity_at, first_seen_at) >= @since OR bucket = 'questions'
  OR (state = 'needs_input' AND (
    facts -> '$.approval' != 'null' OR facts -> '$.question' != 'null'
    OR id IN (SELECT session_id FROM decisions WHERE answered_at IS NULL)
    OR id IN (SELECT session_id FROM records WHERE declaration IS NOT NULL)))
  OR id IN (SELECT session_id FROM records WHERE pinned) OR id IN (SELECT session_id FROM owners))`

function inboxV5(db: Database.Database, since: number): {ids: string[]; olderByRunner: Map<string | null, number>} {
  const rows = db
    .prepare(`SELECT id, ${CANDIDATE_V5}, coalesce(bucket, 'new'), runner FROM sessions ORDER BY rowid`)
    .raw(true)
    .all({since}) as [string, number, string, string | null][]
  const ids: string[] = []
  const olderByRunner = new Map<string | null, number>()
  for (const [id, candidate, bucket, runner] of rows) {
    if (candidate) ids.push(id)
    else if (bucket !== 'folded' && bucket !== 'dismissed' && bucket !== 'hidden')
      olderByRunner.set(runner, (olderByRunner.get(runner) ?? 0) + 1)
  }

  return {ids, olderByRunner}
}

const file = (p: string, over: Partial<Parameters<Store['saveFile']>[0]> = {}): Parameters<Store['saveFile']>[0] => ({
  agent: 'claude_code',
  dev: 1,
  ino: 100,
  kind: 'jsonl',
  mtimeMs: NOW - DAY,
  offset: 500,
  parseErrors: 0,
  path: p,
  readAt: NOW,
  size: 500,
  state: '{"lines":3}',
  holder: null,
  tailTried: null,
  fp: null,
  ...over,
})

/** The marks as schema 5 answered them: migration 9's columns (holder, tailTried, fp) left out. */
const marksShape = (marks: ReturnType<typeof loadFileMarks>): Map<string, Record<string, unknown>> =>
  new Map([...marks].map(([k, {fp: _fp, holder: _holder, tailTried: _tail, ...v}]) => [k, {...v}]))

const SRC: FactSource = {kind: 'transcript', ref: '/h/a.jsonl'}
const facts = (over: Partial<SessionFacts> = {}): SessionFacts => ({
  ...EMPTY_FACTS,
  cwd: '/src/app',
  lastActivityAt: NOW - 60_000,
  messages: 2,
  settled: true,
  title: 'Fix the parser',
  turnIndex: 1,
  ...over,
})

/** A store at schema 5 with files, contributions and sessions of every kind the queries tell apart. */
function storeAtV5(home: string): void {
  fs.mkdirSync(home, {recursive: true})
  const db = new Database(path.join(home, 'cast.db'))
  db.pragma('journal_mode = WAL')
  migrate(
    db,
    MIGRATIONS.filter((m) => m.version <= 5),
  )
  expect(db.pragma('user_version', {simple: true})).toBe(5)
  db.close()
  // Write through the store's own code while it is still at schema 5: a Store would migrate, so
  // the rows go in with plain SQL shaped like its writes.
  const raw = new Database(path.join(home, 'cast.db'))
  const put = raw.prepare(
    `INSERT INTO files (path, agent, kind, dev, ino, size, mtime_ms, offset, state, parse_errors, read_at)
     VALUES (@path, @agent, @kind, @dev, @ino, @size, @mtimeMs, @offset, @state, @parseErrors, @readAt)`,
  )
  const contribute = raw.prepare(`INSERT INTO contributions (path, agent, native_id, data) VALUES (?, ?, ?, ?)`)
  put.run(file('/h/a.jsonl'))
  put.run(file('/h/tail.jsonl', {offset: 400, state: '{"tail":"{\\"type\\":"}'}))
  put.run(file('/h/nostate.jsonl', {offset: 10, size: 20, state: null}))
  put.run(file('/h/codex-held.jsonl', {agent: 'codex', state: '{"__holder":4242,"lines":9}'}))
  put.run(file('/h/codex-free.jsonl', {agent: 'codex', state: '{"lines":9}'}))
  put.run(file('/h/claude-says-holder.jsonl', {state: '{"__holder":1}'}))
  put.run(file('/h/registry.json', {kind: 'whole', parseErrors: 2, state: null}))
  contribute.run('/h/a.jsonl', 'claude_code', 's-claim', JSON.stringify({processClaim: {pid: 4242, startedAt: 1}, title: 'x'}))
  contribute.run('/h/tail.jsonl', 'claude_code', 's-none', JSON.stringify({title: 'no claim'}))
  contribute.run('/h/registry.json', 'claude_code', 's-word', JSON.stringify({title: 'processClaim'}))
  contribute.run('/h/codex-held.jsonl', 'codex', 'c-claim', JSON.stringify({processClaim: {pid: 7, startedAt: 2}}))
  raw.close()
}

describe('migration 6: the no-op sync and inbox indexes', () => {
  it('migrates a schema-5 store in place; every query answers as the schema-5 query did', () => {
    const home = path.join(dir, 'cast')
    storeAtV5(home)
    const before = new Database(path.join(home, 'cast.db'), {readonly: true})
    const claims5 = claimsV5(before)
    const marks5 = marksV5(before, ['codex'])
    before.close()

    const store = new Store(home)
    expect(store.db.pragma('user_version', {simple: true})).toBe(LATEST_VERSION)
    expect(LATEST_VERSION).toBeGreaterThanOrEqual(6)
    const indexes = store.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index'`).pluck().all() as string[]
    expect(indexes).toEqual(expect.arrayContaining(['contributions_claims', 'files_marks', 'sessions_inbox']))

    expect(store.sessionsWithProcessClaims()).toEqual(
      (claims5 as {agent: string; data: string; native_id: string; path: string}[]).map((r) => ({
        agent: r.agent,
        data: r.data,
        nativeId: r.native_id,
        path: r.path,
      })),
    )
    expect(
      store
        .sessionsWithProcessClaims()
        .map((c) => c.nativeId)
        .sort(),
    ).toEqual(['c-claim', 's-claim', 's-word'])
    expect(marksShape(loadFileMarks(store, ['codex']))).toEqual(marks5)
    // Held only for the agents that record a holder: Codex's file, not Claude Code's.
    expect(loadFileMarks(store, ['codex']).get('/h/codex-held.jsonl')?.held).toBe(true)
    expect(loadFileMarks(store, ['codex']).get('/h/claude-says-holder.jsonl')?.held).toBe(false)
    expect(loadFileMarks(store, []).get('/h/codex-held.jsonl')?.held).toBe(false)
    expect(loadFileMarks(store, ['codex']).get('/h/tail.jsonl')).toMatchObject({state: '{"tail":"{\\"type\\":"}', stateLoaded: true})
    store.close()
  })

  it('the indexes follow every write: a claim added, changed away, a file rewritten, a session moved', () => {
    const store = new Store(path.join(dir, 'cast'))
    store.saveFile(file('/h/x.jsonl'))
    store.replaceContributions('/h/x.jsonl', 'claude_code', [{data: JSON.stringify({processClaim: {pid: 1, startedAt: 1}}), nativeId: 'x'}])
    expect(store.sessionsWithProcessClaims().map((c) => c.nativeId)).toEqual(['x'])
    store.replaceContributions('/h/x.jsonl', 'claude_code', [{data: JSON.stringify({title: 'gone'}), nativeId: 'x'}])
    expect(store.sessionsWithProcessClaims()).toEqual([])
    store.upsertContribution(
      'hook://claude_code/y',
      'claude_code',
      'hook',
      'y',
      JSON.stringify({processClaim: {pid: 2, startedAt: 2}}),
      NOW,
    )
    expect(store.sessionsWithProcessClaims()).toEqual(
      claimsV5(store.db).map((r: any) => ({agent: r.agent, data: r.data, nativeId: r.native_id, path: r.path})),
    )

    // Since migration 9 the holder is a column beside the state (the state is the parser's alone).
    store.saveFile(file('/h/x.jsonl', {agent: 'codex', holder: 9, offset: 300, size: 900, state: '{"tail":"ab"}', tailTried: 900}))
    expect(loadFileMarks(store, ['codex']).get('/h/x.jsonl')).toMatchObject({
      held: true,
      holder: 9,
      offset: 300,
      size: 900,
      state: '{"tail":"ab"}',
      tailTried: 900,
    })
    store.saveFile(file('/h/x.jsonl', {agent: 'codex', offset: 900, size: 900, state: '{"lines":1}'}))
    expect(loadFileMarks(store, ['codex']).get('/h/x.jsonl')).toMatchObject({held: false, state: null, stateLoaded: false})

    // Sessions of every kind the inbox tells apart, then moved: the index answers as the table did.
    const id = (n: string): string => store.upsertFacts('claude_code', n, facts(), null, ctx).id
    store.tx(() => {
      id('recent')
      store.upsertFacts('claude_code', 'old', facts({lastActivityAt: NOW - 30 * DAY}), null, ctx)
      store.upsertFacts(
        'claude_code',
        'old-question',
        facts({lastActivityAt: NOW - 30 * DAY, question: {at: NOW - 30 * DAY, source: SRC, text: 'Which?'}, settled: false}),
        null,
        ctx,
      )
      store.upsertFacts(
        'claude_code',
        'old-approval',
        facts({approval: {at: NOW - 30 * DAY, source: SRC, text: 'Run rm?'}, lastActivityAt: NOW - 30 * DAY, settled: false}),
        null,
        ctx,
      )
      const pinned = store.upsertFacts('claude_code', 'old-pinned', facts({lastActivityAt: NOW - 30 * DAY}), null, ctx).id
      store.patchRecords(pinned, {pinned: true})
      const declared = store.upsertFacts('codex', 'old-declared', facts({lastActivityAt: NOW - 30 * DAY}), null, {
        ...ctx,
        runner: 'other@example.com',
      }).id
      store.patchRecords(declared, {declaration: {at: NOW - 30 * DAY, messages: 2, status: 'blocked', text: 'Need a key', turnIndex: 1}})
      store.reconcile(NOW)
    })
    const since = NOW - 7 * DAY
    const check = (): void => {
      const got = inboxCandidates(store, since)
      expect({ids: got.ids, older: [...got.olderByRunner]}).toEqual(
        (({ids, olderByRunner}) => ({ids, older: [...olderByRunner]}))(inboxV5(store.db, since)),
      )
    }

    check()
    expect(inboxCandidates(store, since).ids.length).toBeGreaterThanOrEqual(4)
    store.tx(() => {
      store.upsertFacts('claude_code', 'old-question', facts({lastActivityAt: NOW - 29 * DAY}), null, ctx)
      store.upsertFacts('claude_code', 'recent', facts({lastActivityAt: NOW - 20 * DAY}), null, ctx)
      store.reconcile(NOW)
    })
    check()
    store.close()
  })

  it('SQLite answers each query through its index (the claims without a scan, marks and inbox without the big columns)', () => {
    const store = new Store(path.join(dir, 'cast'))
    const plan = (sql: string): string =>
      (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({since: 0}) as {detail: string}[]).map((r) => r.detail).join(' | ')
    // The statements the store runs, taken from its statement cache after one call each.
    store.sessionsWithProcessClaims()
    loadFileMarks(store, ['codex'])
    inboxCandidates(store, 0)
    const sqls = [...(store as unknown as {stmts: Map<string, unknown>}).stmts.keys()]
    const claims = sqls.find((s) => s.includes('FROM contributions') && s.includes('processClaim'))!
    const marks = sqls.find((s) => s.includes('FROM files INDEXED BY files_marks'))!
    const inbox = sqls.find((s) => s.includes('FROM sessions') && s.includes('@since') && s.includes('runner'))!
    expect(plan(claims)).toMatch(/USING INDEX contributions_claims/)
    expect(plan(marks)).toMatch(/USING COVERING INDEX files_marks/)
    expect(plan(inbox)).toMatch(/SCAN sessions USING COVERING INDEX sessions_inbox/)
    store.close()
  })
})
