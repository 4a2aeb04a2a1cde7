/**
 * A full pass compares each file's stat with its stored mark as it walks (src/core/ingest/stat-pass.ts)
 * and keeps nothing of an unchanged file. Each sync here is a fresh Ingester over the same store,
 * as each `cast sessions` is a fresh process: what decides a read is the store's mark, never
 * something a previous pass kept in memory.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {ADAPTERS} from '../../../src/adapters/index.js'
import {LIGHT_MODULES} from '../../../src/adapters/light.js'
import {discoverPaths} from '../../../src/core/ingest/discover.js'
import {Ingester, type SyncStats} from '../../../src/core/ingest/engine.js'
import {statPass} from '../../../src/core/ingest/stat-pass.js'
import {Store} from '../../../src/core/store/store.js'
import {claudeLines, claudeTranscriptPath, writeFile} from '../../helpers/cli.js'

const CWD = '/src/app'
const SIDS = ['11111111-2222-4333-8444-000000000001', '11111111-2222-4333-8444-000000000002', '11111111-2222-4333-8444-000000000003']
let dir: string
let home: string
let store: Store
const clock = Date.parse('2026-11-29T12:00:00Z')

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-stat-pass-'))
  home = path.join(dir, 'home')
  fs.mkdirSync(home)
  store = new Store(path.join(dir, 'cast'))
})
afterEach(() => {
  store.close()
  fs.rmSync(dir, {force: true, recursive: true})
})

const file = (i: number): string => claudeTranscriptPath(home, CWD, SIDS[i]!)
const lines = (i: number, prompt: string): string =>
  claudeLines({at: new Date(clock - 3_600_000 + i * 60_000), cwd: CWD, prompt, sessionId: SIDS[i]!})
/** A one-shot sync, as `cast sessions` runs it: a new Ingester over the store. */
const sync = (): SyncStats =>
  new Ingester(store, ADAPTERS, {env: {HOME: home}, home}, {clock: () => clock, device: 'box', me: 'me@example.com'}).sync()
const titles = (): Record<string, unknown> =>
  Object.fromEntries(store.loadSessions().map((s) => [s.nativeId, s.facts.title ?? null] as const))
const hour = new Date(clock - 7_200_000)

beforeEach(() => {
  for (const i of [0, 1, 2]) {
    writeFile(file(i), lines(i, `Prompt number ${i}`))
    fs.utimesSync(file(i), hour, hour)
  }
})

describe('a full pass over unchanged and changed files', () => {
  it('reads nothing when nothing changed, and keeps every session', () => {
    expect(sync()).toMatchObject({files: 3, read: 3})
    const before = titles()
    expect(sync()).toMatchObject({files: 3, read: 0, bytes: 0, sessionsChanged: 0})
    expect(titles()).toEqual(before)
  })

  it('reads a file replaced by another of the same size and mtime (a new inode)', () => {
    sync()
    const next = file(1) + '.new'
    writeFile(next, lines(1, 'Prompt NUMBER 1'))
    expect(fs.statSync(next).size).toBe(fs.statSync(file(1)).size)
    fs.utimesSync(next, hour, hour)
    fs.renameSync(next, file(1))

    expect(sync()).toMatchObject({read: 1})
    expect(titles()[SIDS[1]!]).toBe('Prompt NUMBER 1')
    expect(titles()[SIDS[0]!]).toBe('Prompt number 0')
  })

  it('reads a file that grew, and one truncated to a shorter text with its old mtime', () => {
    sync()
    fs.appendFileSync(file(0), lines(0, 'A second prompt').split('\n')[0] + '\n')
    fs.writeFileSync(file(2), lines(2, 'Short'))
    fs.utimesSync(file(2), hour, hour)

    expect(sync()).toMatchObject({read: 2})
    expect(store.loadSessions().find((s) => s.nativeId === SIDS[0])!.facts.messages).toBe(3)
    expect(titles()[SIDS[2]!]).toBe('Short')
  })

  it('forgets a deleted file, and keeps the others', () => {
    sync()
    const before = titles()
    fs.rmSync(file(2))

    expect(sync()).toMatchObject({files: 2, read: 0})
    expect([...store.loadFiles().keys()].sort()).toEqual([file(0), file(1)])
    expect(titles()[SIDS[0]!]).toBe(before[SIDS[0]!])
    expect(titles()[SIDS[1]!]).toBe(before[SIDS[1]!])
  })
})

describe('a pass walked over the path rules alone (src/adapters/light.ts), handed to the engine', () => {
  /** The quick sync's walk (src/lib/ingest/quick-sync.ts), then the engine's sync from it. */
  const syncWalked = (): SyncStats => {
    const ctx = {env: {HOME: home}, home}
    const pass = statPass(
      store,
      LIGHT_MODULES.map((m) => m.rules),
      ctx,
      new Map(),
      null,
      0,
    )
    const ingester = new Ingester(store, ADAPTERS, ctx, {clock: () => clock, device: 'box', me: 'me@example.com'})
    return ingester.sync(undefined, {walked: {holders: new Map(), pass}})
  }

  it('reads what changed and forgets what is gone, as a sync that walks itself does', () => {
    sync()
    fs.appendFileSync(file(0), lines(0, 'A second prompt').split('\n')[0] + '\n')
    fs.rmSync(file(2))

    expect(syncWalked()).toMatchObject({files: 2, read: 1})
    expect(store.loadSessions().find((s) => s.nativeId === SIDS[0])!.facts.messages).toBe(3)
    expect([...store.loadFiles().keys()].sort()).toEqual([file(0), file(1)])
    expect(syncWalked()).toMatchObject({files: 2, read: 0})
  })

  it('is not walked again: the sync reads the files that pass found, and a later sync the rest', () => {
    sync()
    const walked = {
      holders: new Map<string, number>(),
      pass: statPass(
        store,
        LIGHT_MODULES.map((m) => m.rules),
        {env: {HOME: home}, home},
        new Map(),
        null,
        0,
      ),
    }
    fs.appendFileSync(file(1), lines(1, 'After the walk').split('\n')[0] + '\n')
    const ingester = new Ingester(store, ADAPTERS, {env: {HOME: home}, home}, {clock: () => clock, device: 'box', me: 'me@example.com'})
    expect(ingester.sync(undefined, {walked})).toMatchObject({files: 3, read: 0})
    expect(sync()).toMatchObject({files: 3, read: 1})
  })
})

describe("a watcher's new paths", () => {
  it('are matched as the walk matches them: nothing inside a folder the walk skips (a Codex rollout under cache/)', () => {
    const rollout = path.join(
      home,
      '.codex',
      'sessions',
      '2026',
      '12',
      '02',
      'rollout-2026-12-02T00-18-59-019e59c4-8d42-7b15-a2c6-0f9e8d7c6b02.jsonl',
    )
    const skipped = path.join(home, '.codex', 'sessions', 'cache', path.basename(rollout))
    writeFile(rollout, '{}\n')
    writeFile(skipped, '{}\n')
    const ctx = {env: {HOME: home}, home}

    const walked = new Ingester(store, ADAPTERS, ctx, {clock: () => clock, device: 'box', me: 'me@example.com'})
      .discover()
      .map((d) => d.path)
    expect(walked).toContain(rollout)
    expect(walked).not.toContain(skipped)
    expect(discoverPaths(ADAPTERS, ctx, [skipped, rollout], new Set()).map((d) => d.path)).toEqual([rollout])
  })
})
