import Database from 'better-sqlite3'
import {mkdirSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, describe, expect, it} from 'vitest'

import {cursor, cwdBucket, readRoot, workspacePath} from '../../../src/adapters/cursor/index.js'
import type {AdapterEnv, HookEvent} from '../../../src/core/ingest/adapter.js'
import {discover, factsOf, readAll, readOne, reduceHooks} from '../gemini/harness.js'
import {writeStore} from './store-writer.js'

const HOME = fileURLToPath(new URL('../../fixtures/cursor', import.meta.url))
const ctx: AdapterEnv = {env: {}, home: HOME}
const CHATS = join(HOME, '.cursor', 'chats')
const base = Date.parse('2026-08-01T10:00:00.000Z')
const sec = (s: number): number => base + s * 1000
const cid = (k: number): string => `d0000000-0000-4000-8000-0000000000${String(k).padStart(2, '0')}`
const facts = (k: number, extra: Parameters<typeof factsOf>[3] = [], env = ctx) => factsOf(cursor, env, cid(k), extra)
const storePath = (bucket: string, k: number): string => join(CHATS, bucket, cid(k), 'store.db')

const temps: string[] = []
afterAll(() => {
  for (const d of temps) rmSync(d, {force: true, recursive: true})
})

function tempHome(): {env: AdapterEnv; chats: string} {
  const dir = mkdtempSync(join(tmpdir(), 'cast-cursor-'))
  temps.push(dir)
  return {chats: join(dir, '.cursor', 'chats'), env: {env: {}, home: dir}}
}

const hook = (seconds: number, name: string, extra: Record<string, unknown> = {}, k = 1): HookEvent => ({
  agent: 'cursor',
  at: sec(seconds),
  payload: {conversation_id: cid(k), generation_id: `g${seconds}`, hook_event_name: name, workspace_roots: ['/tmp/shop'], ...extra},
})

describe('Cursor agent paths', () => {
  it('reads ~/.cursor/chats; matches store.db (sqlite) and meta.json (whole) only', () => {
    const found = discover(cursor, ctx).map((d) => `${d.match.kind}:${d.match.role}:${d.path.slice(CHATS.length + 1)}`)

    expect(cursor.roots(ctx)).toEqual([CHATS])
    expect(found).toContain(`sqlite:store:${cwdBucket('/tmp/shop')}/${cid(1)}/store.db`)
    expect(found).toContain(`whole:meta:${cwdBucket('/tmp/shop')}/${cid(1)}/meta.json`)
    expect(cursor.match(`${storePath(cwdBucket('/tmp/shop'), 1)}-wal`, ctx)).toBeNull()
    expect(cwdBucket('/tmp/shop')).toBe('72c6146178306d1c9c64dd67c300063d')
  })
})

describe('Cursor agent store', () => {
  it('settled, with meta.json: its title, cwd and update time; the store gives counts and model', () => {
    expect(facts(1)).toMatchObject({
      createdAt: base,
      cwd: '/tmp/shop',
      lastActivityAt: sec(60),
      lastAssistantText: 'The cart now shows a total.',
      messages: 3,
      model: 'claude-4.5-sonnet',
      settled: true,
      title: 'Cart total in the header',
      turnIndex: 1,
    })
    expect(facts(1).sources['title']).toMatchObject({kind: 'meta'})
  })

  it('working: the last message is a tool call; a placeholder name gives way to the first prompt', () => {
    expect(facts(2)).toMatchObject({
      cwd: '/tmp/shop',
      lastActivityAt: sec(1),
      messages: 2,
      model: 'gpt-5',
      settled: false,
      title: 'Run the test suite',
    })
  })

  it('store only: the workspace URL is decoded; injected context is not a prompt', () => {
    expect(facts(3)).toMatchObject({cwd: '/tmp/my shop', messages: 2, settled: true, title: 'Why is checkout slow?', turnIndex: 1})
  })

  it('a store with no tables and a meta.json caught mid-write crash nothing; the bad file is counted', () => {
    const {bySession, failed} = readAll(cursor, ctx)

    expect(failed).toEqual([join(CHATS, cwdBucket('/tmp/shop'), cid(4), 'meta.json')])
    expect(bySession.has(cid(4))).toBe(false)
  })

  it('a missing store, or one locked by a writer, fails to read and crashes nothing', () => {
    const {chats, env} = tempHome()
    const path = join(chats, cwdBucket('/tmp/x'), cid(9), 'store.db')
    mkdirSync(join(chats, cwdBucket('/tmp/x'), cid(9)), {recursive: true})
    expect(readOne(cursor, path, {kind: 'sqlite', nativeId: cid(9), role: 'store'}).failed).toEqual([path])

    writeStore(path, {agentId: cid(9), createdAt: base, messages: [{content: 'hi', role: 'user'}], name: 'Locked'})
    const writer = new Database(path)
    writer.exec('BEGIN EXCLUSIVE')
    try {
      expect(readOne(cursor, path, cursor.match(path, env)!).failed).toEqual([path])
    } finally {
      writer.exec('ROLLBACK')
      writer.close()
    }

    expect(readOne(cursor, path, cursor.match(path, env)!).contributions[0]?.facts).toMatchObject({messages: 1, title: 'hi'})
  })

  it('a WAL store being written reads what is committed, without blocking the writer', () => {
    const {chats, env} = tempHome()
    const dir = join(chats, cwdBucket('/tmp/wal'), cid(8))
    mkdirSync(dir, {recursive: true})
    const path = join(dir, 'store.db')
    writeStore(path, {
      agentId: cid(8),
      createdAt: base,
      journal: 'WAL',
      messages: [
        {content: 'Ship it', role: 'user'},
        {content: 'Shipped.', role: 'assistant'},
      ],
      name: 'Ship',
      workspace: '/tmp/wal',
    })
    const writer = new Database(path)
    writer.exec('BEGIN IMMEDIATE')
    writer.prepare("UPDATE meta SET value = 'garbage' WHERE key = '0'").run()
    try {
      expect(readOne(cursor, path, cursor.match(path, env)!).contributions[0]?.facts).toMatchObject({
        cwd: '/tmp/wal',
        messages: 2,
        settled: true,
      })
    } finally {
      writer.exec('ROLLBACK')
      writer.close()
    }
  })

  it('an older store with key/value meta rows reads its name and cwd', () => {
    const {chats, env} = tempHome()
    const dir = join(chats, cwdBucket('/tmp/kv'), cid(7))
    mkdirSync(dir, {recursive: true})
    const db = new Database(join(dir, 'store.db'))
    db.exec(
      "CREATE TABLE meta (key TEXT PRIMARY KEY, value BLOB); INSERT INTO meta VALUES ('name', 'Old chat'), ('cwd', '/tmp/kv'), ('createdAt', '1785578400000')",
    )
    db.close()

    expect(factsOf(cursor, env, cid(7))).toMatchObject({cwd: '/tmp/kv', messages: 0, title: 'Old chat'})
  })

  it('the root blob reader stops at malformed bytes; workspaces decode', () => {
    expect(readRoot(new Uint8Array([0x0a, 0x05, 0x01]))).toEqual({ids: [], workspace: null})
    expect(readRoot(new Uint8Array([0x4a, 0x02, 0x2f, 0x78]))).toEqual({ids: [], workspace: '/x'})
    expect(workspacePath('file:///Users/a/My%20Project')).toBe('/Users/a/My Project')
    expect(workspacePath('')).toBeNull()
  })
})

describe('Cursor agent hooks', () => {
  const hookFacts = (events: HookEvent[]) => reduceHooks(cursor, events)[0]

  it('belong to the conversation_id', () => {
    expect(cursor.hooks?.sessionOf(hook(0, 'stop'))).toBe(cid(1))
    expect(cursor.hooks?.sessionOf({agent: 'cursor', at: 0, payload: {hook_event_name: 'stop'}})).toBeNull()
  })

  it('beforeSubmitPrompt works, stop settles, a stop with an error is an error banner', () => {
    expect(hookFacts([hook(0, 'beforeSubmitPrompt', {prompt: 'go'})])?.facts.settled).toBe(false)
    expect(hookFacts([hook(0, 'beforeSubmitPrompt'), hook(9, 'stop', {loop_count: 0, status: 'completed'})])?.facts).toMatchObject({
      error: null,
      settled: true,
    })
    expect(hookFacts([hook(0, 'beforeSubmitPrompt'), hook(9, 'stop', {status: 'error'})])?.facts.error).toMatchObject({
      at: sec(9),
      text: 'the agent stopped with an error',
    })
    expect(hookFacts([hook(0, 'stop', {status: 'aborted'})])?.facts.settled).toBe(true)
  })

  it('composed: a prompt submitted after the store was last written starts a turn', () => {
    const f = facts(
      1,
      reduceHooks(cursor, [
        hook(120, 'beforeSubmitPrompt', {prompt: 'Now the checkout'}),
        hook(121, 'postToolUse', {tool_name: 'read_file'}),
      ]),
    )

    expect(f).toMatchObject({lastActivityAt: sec(121), settled: false, turnStartedAt: sec(120)})
    expect(f.sources['settled']).toEqual({kind: 'hook', ref: 'postToolUse'})
  })

  it('composed: a stop settles a store whose last message is a tool call; afterAgentResponse gives the text', () => {
    const f = facts(
      2,
      reduceHooks(cursor, [hook(30, 'afterAgentResponse', {text: 'All 212 tests pass.'}, 2), hook(31, 'stop', {status: 'completed'}, 2)]),
    )

    expect(f).toMatchObject({lastAssistantText: 'All 212 tests pass.', settled: true})
  })

  it('composed: a hook older than meta.json loses to the store', () => {
    expect(facts(1, reduceHooks(cursor, [hook(10, 'beforeSubmitPrompt')])).settled).toBe(true)
  })
})
