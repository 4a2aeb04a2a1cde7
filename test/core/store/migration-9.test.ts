/**
 * Migration 9: the JSONL reader's marks (the holder process, the quiet tail tried, the print of the
 * bytes before the offset) move out of the adapter's parser state into columns beside it
 * (src/core/ingest/jsonl-read.ts). A store written before kept them in the state as "__holder",
 * "__tail" and "__fp": migrated, each row carries them in its columns and the state keeps the
 * parser's keys only; a sync over the migrated store resumes where the old one stopped and stores
 * the same contributions as a store that read the files from scratch.
 */
import Database from 'better-sqlite3'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {ADAPTERS} from '../../../src/adapters/index.js'
import {Ingester} from '../../../src/core/ingest/engine.js'
import {LATEST_VERSION, migrate, MIGRATIONS} from '../../../src/core/store/migrations.js'
import {Store} from '../../../src/core/store/store.js'
import {claudeLines, claudeTranscriptPath, writeFile} from '../../helpers/cli.js'

const SID = '11111111-2222-4333-8444-555555555555'
const CWD = '/src/app'
const NOW = Date.parse('2026-11-29T12:00:00Z')

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-mig9-'))
})
afterEach(() => fs.rmSync(dir, {force: true, recursive: true}))

/** The files table and the contributions as rows, for comparing two stores. */
function contents(db: Database.Database): {files: unknown[]; contributions: unknown[]} {
  return {
    contributions: db.prepare('SELECT path, agent, native_id, data FROM contributions ORDER BY path, native_id').all(),
    files: db.prepare('SELECT path, agent, kind, offset, size, state, parse_errors, holder, tail_tried, fp FROM files ORDER BY path').all(),
  }
}

/**
 * Put the store back the way cast wrote it at schema 8: the marks inside the state (keys in the
 * order the old reader wrote them: the parser's, then __fp, __holder, __tail), no mark columns,
 * files_marks searching the state's text.
 */
function backToSchema8(file: string): void {
  const db = new Database(file)
  db.exec(`
    DROP INDEX files_marks;
    UPDATE files SET state = json_set(state, '$.__fp', fp, '$.__holder', holder, '$.__tail', tail_tried) WHERE state IS NOT NULL;
    UPDATE files SET state = json_remove(state, '$.__holder') WHERE json_extract(state, '$.__holder') IS NULL;
    UPDATE files SET state = json_remove(state, '$.__tail') WHERE json_extract(state, '$.__tail') IS NULL;
    ALTER TABLE files DROP COLUMN holder;
    ALTER TABLE files DROP COLUMN tail_tried;
    ALTER TABLE files DROP COLUMN fp;
    CREATE INDEX files_marks ON files (path, agent, kind, dev, ino, size, mtime_ms, offset, parse_errors, read_at, instr(coalesce(state, ''), '"__holder":'));
    PRAGMA user_version = 8;
  `)
  db.close()
}

describe('migration 9: the reader marks beside the parser state', () => {
  it('moves __holder, __tail and __fp out of each state into their columns; other states are untouched', () => {
    const home = path.join(dir, 'cast')
    fs.mkdirSync(home, {recursive: true})
    const db = new Database(path.join(home, 'cast.db'))
    migrate(
      db,
      MIGRATIONS.filter((m) => m.version <= 8),
    )
    const put = db.prepare(
      `INSERT INTO files (path, agent, kind, dev, ino, size, mtime_ms, offset, state, parse_errors, read_at)
       VALUES (?, ?, 'jsonl', 1, 1, 900, 0, 500, ?, 0, 0)`,
    )
    put.run('/h/held.jsonl', 'codex', '{"lines":3,"tail":"{\\"a\\":","__fp":"eyJ9Cg==","__holder":4242,"__tail":900}')
    put.run('/h/plain.jsonl', 'claude_code', '{"lines":1,"__fp":"fQo="}')
    put.run('/h/none.jsonl', 'claude_code', '{"lines":1}')
    put.run('/h/null.jsonl', 'claude_code', null)
    put.run('/h/text.log', 'claude_code', 'not json "__holder": 1')
    db.close()

    const store = new Store(home)
    expect(store.db.pragma('user_version', {simple: true})).toBe(LATEST_VERSION)
    const files = store.loadFiles()
    expect(files.get('/h/held.jsonl')).toMatchObject({
      fp: 'eyJ9Cg==',
      holder: 4242,
      state: '{"lines":3,"tail":"{\\"a\\":"}',
      tailTried: 900,
    })
    expect(files.get('/h/plain.jsonl')).toMatchObject({fp: 'fQo=', holder: null, state: '{"lines":1}', tailTried: null})
    expect(files.get('/h/none.jsonl')).toMatchObject({fp: null, holder: null, state: '{"lines":1}', tailTried: null})
    expect(files.get('/h/null.jsonl')).toMatchObject({fp: null, holder: null, state: null, tailTried: null})
    expect(files.get('/h/text.log')).toMatchObject({holder: null, state: 'not json "__holder": 1'})
    const held = store.db.prepare(`SELECT path FROM files INDEXED BY files_marks WHERE holder IS NOT NULL`).pluck().all()
    expect(held).toEqual(['/h/held.jsonl'])
    store.close()
  })

  it('a store written with the marks inside the state resumes where it stopped, with the contributions of a fresh read', () => {
    const home = path.join(dir, 'home')
    const file = claudeTranscriptPath(home, CWD, SID)
    writeFile(file, claudeLines({at: new Date(NOW - 120_000), cwd: CWD, prompt: 'Fix the parser', sessionId: SID}))
    const ingest = (castHome: string): {store: Store; ingester: Ingester} => {
      const store = new Store(castHome)
      const ingester = new Ingester(store, ADAPTERS, {env: {HOME: home}, home}, {clock: () => NOW, device: 'box', me: 'me@example.com'})
      return {ingester, store}
    }

    // The old store: read once, then put back in the shape the schema-8 reader wrote.
    const old = ingest(path.join(dir, 'old'))
    old.ingester.sync()
    const offset = old.store.loadFiles().get(file)!.offset
    old.store.close()
    backToSchema8(path.join(dir, 'old', 'cast.db'))
    const raw = new Database(path.join(dir, 'old', 'cast.db'), {readonly: true})
    const oldState = JSON.parse(raw.prepare('SELECT state FROM files WHERE path = ?').pluck().get(file) as string) as Record<
      string,
      unknown
    >
    raw.close()
    expect(typeof oldState.__fp).toBe('string')

    // Migrated: nothing to read while the file is unchanged; then only the appended line.
    const migrated = ingest(path.join(dir, 'old'))
    expect(migrated.store.loadFiles().get(file)).toMatchObject({fp: oldState.__fp, offset})
    expect(migrated.ingester.sync().read).toBe(0)
    const more =
      JSON.stringify({
        cwd: CWD,
        message: {content: 'Now add a test', role: 'user'},
        parentUuid: 'a1',
        sessionId: SID,
        timestamp: new Date(NOW - 60_000).toISOString(),
        type: 'user',
        uuid: 'u2',
      }) + '\n'
    fs.appendFileSync(file, more)
    const resumed = migrated.ingester.sync()
    expect(resumed.bytes).toBe(Buffer.byteLength(more))
    expect(resumed.lines).toBe(1)

    // A store that read the whole file from scratch holds the same files row and contributions.
    const fresh = ingest(path.join(dir, 'fresh'))
    fresh.ingester.sync()
    expect(contents(migrated.store.db)).toEqual(contents(fresh.store.db))
    expect(migrated.store.loadSessions()[0]!.facts).toMatchObject({messages: 3})
    migrated.store.close()
    fresh.store.close()
  })
})
