import Database from 'better-sqlite3'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {clearOpencodeCache} from '../../../src/adapters/opencode/index.js'
import {buildDb, dbFacts, insertSessions, readDb, t, text} from './helpers.js'
import {ID, SCENARIOS} from './scenarios.js'

let dir: string
let file: string

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-opencode-db-'))
  file = path.join(dir, 'opencode', 'opencode.db')
  buildDb(file, SCENARIOS)
})
afterAll(() => fs.rmSync(dir, {force: true, recursive: true}))
beforeEach(() => clearOpencodeCache())

const facts = (id: string) => {
  const f = dbFacts(file).get(id)
  if (!f) throw new Error(`no session ${id}`)
  return f
}

describe('OpenCode ≥ 1.2: the SQLite database', () => {
  it('reads every session, one contribution each', () => {
    const all = readDb(file)

    expect(all.map((c) => c.nativeId).sort()).toEqual(Object.values(ID).sort())
    expect(all.every((c) => c.extra?.opencode === 'db')).toBe(true)
  })

  it('settled: the last assistant completed with finish "stop"', () => {
    expect(facts(ID.settled)).toMatchObject({
      approval: null,
      createdAt: t(0),
      cwd: '/home/dev/projects/shop',
      error: null,
      lastActivityAt: t(15),
      lastAssistantText: 'Fixed: the callback now clears the `next` cookie before redirecting.',
      lastOutputAt: t(15),
      messages: 3,
      model: 'claude-sonnet-4-5',
      parentNativeId: null,
      parseErrors: 0,
      process: null,
      question: null,
      settled: true,
      title: 'Fix the login redirect loop',
      turnIndex: 1,
      turnStartedAt: t(0),
    })
  })

  it('names the database row behind each fact', () => {
    const f = facts(ID.settled)

    expect(f.sources.settled).toEqual({kind: 'sqlite', ref: `${file}#message=msg_a03`})
    expect(f.sources.title).toEqual({kind: 'sqlite', ref: `${file}#session=${ID.settled}`})
    expect(f.sources.model).toEqual({kind: 'sqlite', ref: `${file}#message=msg_a03`})
  })

  it('working: a reply without time.completed (still streaming)', () => {
    expect(facts(ID.streaming)).toMatchObject({lastAssistantText: 'I will add a', messages: 2, model: 'gpt-5.1', settled: false})
  })

  it('working: a running tool part', () => {
    const f = facts(ID.toolRunning)

    expect(f.settled).toBe(false)
    expect(f.sources.settled).toEqual({kind: 'sqlite', ref: `${file}#part=prt_c03`})
  })

  it('working: a step that finished with "tool-calls" (the loop goes on)', () => {
    expect(facts(ID.toolCalls).settled).toBe(false)
  })

  it('question: a running question tool is an open question with its text', () => {
    const f = facts(ID.question)

    expect(f.question).toEqual({
      at: t(404),
      source: {kind: 'sqlite', ref: `${file}#part=prt_e03`},
      text: 'Which database should the migration target?',
    })
    expect(f.settled).toBe(false)
  })

  it('error: a named error on the last assistant is a hard block with its message', () => {
    const f = facts(ID.error)

    expect(f.error).toEqual({at: t(505), source: {kind: 'sqlite', ref: `${file}#message=msg_f02`}, text: 'Overloaded'})
    expect(f.settled).toBe(true)
  })

  it('an error with no message reads by its name', () => {
    expect(facts(ID.length).error?.text).toBe('Output length limit reached')
  })

  it('MessageAbortedError is the user interrupting: settled, no error', () => {
    expect(facts(ID.aborted)).toMatchObject({error: null, lastAssistantText: 'Renaming', settled: true})
  })

  it('subagent: a child session names its parent (parent_id) and is working on its own', () => {
    const child = facts(ID.child)
    const parent = facts(ID.parent)

    expect(child).toMatchObject({
      model: 'claude-haiku-4-5',
      parentNativeId: ID.parent,
      settled: false,
      title: 'Explore the auth module (@explore subagent)',
    })
    expect(parent).toMatchObject({parentNativeId: null, settled: false})
  })

  it('time_compacting set: compacting, so working', () => {
    const f = facts(ID.compacting)

    expect(f.settled).toBe(false)
    expect(f.sources.compaction).toEqual({kind: 'sqlite', ref: `${file}#session=${ID.compacting}`})
  })

  it('a compaction summary (assistant summary: true) is noted, and a finished turn stays settled', () => {
    const c = readDb(file).find((x) => x.nativeId === ID.compacted)!

    expect(c.extra).toMatchObject({compactions: 1})
    expect(c.facts).toMatchObject({messages: 4, settled: true})
    expect(c.facts.sources?.compaction).toEqual({kind: 'sqlite', ref: `${file}#message=msg_l04`})
  })

  it("a placeholder title (New session - …) gives way to the first prompt's first line", () => {
    expect(facts(ID.placeholder).title).toBe('Write a haiku about SQLite')
  })

  it('a row whose JSON is cut is skipped and counted; the session still reads', () => {
    expect(facts(ID.malformed)).toMatchObject({lastAssistantText: '1,024 words.', messages: 2, parseErrors: 2, settled: true})
  })
})

describe('OpenCode database: incremental reads', () => {
  it('a second read with nothing changed gives the same answer', () => {
    const first = readDb(file)
    const second = readDb(file)

    expect(second).toEqual(first)
  })

  it('a new prompt in a settled session shows at once, and matches a cold read', () => {
    const copy = path.join(dir, 'inc', 'opencode.db')
    buildDb(
      copy,
      SCENARIOS.filter((s) => s.id === ID.settled || s.id === ID.error),
    )
    expect(dbFacts(copy).get(ID.settled)!.settled).toBe(true)

    const db = new Database(copy)
    insertSessions(db, [
      {
        ...SCENARIOS.find((s) => s.id === ID.settled)!,
        messages: [{created: t(60), id: 'msg_a04', parts: [text('prt_a09', 'Also add a test', t(60))], role: 'user'}],
        updated: t(60),
      },
    ])
    db.close()

    const warm = dbFacts(copy)
    clearOpencodeCache()
    const cold = dbFacts(copy)
    expect(warm.get(ID.settled)).toMatchObject({messages: 4, settled: false, turnIndex: 2, turnStartedAt: t(60)})
    expect(warm).toEqual(cold)
  })

  it('a tool finishing in a working session (a part change alone) shows at once', () => {
    const copy = path.join(dir, 'parts', 'opencode.db')
    buildDb(
      copy,
      SCENARIOS.filter((s) => s.id === ID.question),
    )
    expect(dbFacts(copy).get(ID.question)!.question).not.toBe(null)

    const db = new Database(copy)
    db.prepare(`UPDATE part SET data = json_set(data, '$.state.status', 'completed'), time_updated = ? WHERE id = 'prt_e03'`).run(t(460))
    db.close()

    expect(dbFacts(copy).get(ID.question)).toMatchObject({question: null, settled: false})
  })
})

describe('OpenCode database: tables and columns are probed', () => {
  it('an older schema (fewer session columns, no part table) still reads', () => {
    const old = path.join(dir, 'old', 'opencode.db')
    buildDb(
      old,
      [SCENARIOS.find((s) => s.id === ID.settled)!],
      `CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, vcs text, time_created integer NOT NULL, time_updated integer NOT NULL, sandboxes text NOT NULL);
       CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, slug text NOT NULL, directory text NOT NULL, title text NOT NULL, version text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL);
       CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
       CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);`,
    )
    const db = new Database(old)
    db.exec('DROP TABLE part')
    db.close()

    expect(dbFacts(old).get(ID.settled)).toMatchObject({
      lastAssistantText: null,
      messages: 3,
      settled: true,
      title: 'Fix the login redirect loop',
    })
  })

  it('a database with no session table (or an empty file) gives nothing, without throwing', () => {
    const other = path.join(dir, 'other', 'opencode.db')
    buildDb(other, [], 'CREATE TABLE kv (k text, v text);')
    const empty = path.join(dir, 'empty', 'opencode.db')
    fs.mkdirSync(path.dirname(empty), {recursive: true})
    fs.writeFileSync(empty, '')

    expect(readDb(other)).toEqual([])
    expect(readDb(empty)).toEqual([])
  })

  it('session_v2 (OpenCode 2.x) without message rows: the session is known, its turn is not', () => {
    const v2 = path.join(dir, 'v2', 'opencode.db')
    buildDb(
      v2,
      [],
      `CREATE TABLE session_v2 (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, slug text NOT NULL, directory text NOT NULL, title text, version text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, time_idle integer, time_compacting integer, time_archived integer);
       INSERT INTO session_v2 (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES ('ses_v2', 'global', 'readme', '/home/dev/r', 'readme', '2.0.19', ${t(0)}, ${t(9)});`,
    )

    expect(dbFacts(v2).get('ses_v2')).toMatchObject({
      cwd: '/home/dev/r',
      lastActivityAt: t(9),
      messages: 0,
      settled: false,
      title: 'readme',
    })
  })
})
