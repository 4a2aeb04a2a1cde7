/**
 * A cold index large enough to share its reading with the read worker (engine.ts: over 32 MB of
 * JSONL pending) stores exactly what a single-threaded read of the same corpus stores: the same
 * sessions, facts, states and file offsets, and a sound transitions log.
 */
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {ADAPTERS} from '../../src/adapters/index.js'
import {Ingester} from '../../src/core/ingest/engine.js'
import {Store} from '../../src/core/store/store.js'
import {makeHome, type TempHome} from '../helpers/cli.js'
import {CORPUS_NOW, generateCorpus, killChildren, SEED, spawnCast, transitionsProblems, withDb} from './helpers.js'

function snapshot(castHome: string): {sessions: unknown[]; files: unknown[]} {
  return withDb(castHome, (db) => ({
    files: db.prepare('SELECT path, offset, parse_errors, size FROM files ORDER BY path').all(),
    sessions: db.prepare('SELECT id, facts, state, reason, bucket, parent_id FROM sessions ORDER BY id').all(),
  }))
}

let h: TempHome
beforeAll(() => {
  h = makeHome()
  generateCorpus(h.home, {bytes: 48 * 1024 * 1024, seed: SEED, sessions: 300})
})

afterAll(async () => {
  await killChildren()
  h.cleanup()
})

describe('a cold index read on two threads', () => {
  it('stores what a single-threaded index of the same corpus stores', async () => {
    const workerHome = path.join(h.dir, 'worker')
    const r = await spawnCast(['daemon', '--once'], {...h.env, CAST_HOME: workerHome, CAST_NOW: new Date(CORPUS_NOW).toISOString()}).done
    expect(r.code, r.stderr).toBe(0)

    // This imports the engine's TypeScript source, beside which no built worker module sits: it
    // reads every file on this thread.
    const inlineHome = path.join(h.dir, 'inline')
    const store = new Store(inlineHome)
    try {
      const ingester = new Ingester(
        store,
        ADAPTERS,
        {env: h.env, home: h.home},
        {clock: () => CORPUS_NOW, device: 'box', me: 'me@example.com'},
      )
      expect(ingester.sync().bytes).toBeGreaterThan(32 * 1024 * 1024)
    } finally {
      store.close()
    }

    const got = snapshot(workerHome)
    const want = snapshot(inlineHome)
    expect(got.sessions.length).toBeGreaterThan(300)
    expect(got.files).toEqual(want.files)
    expect(got.sessions).toEqual(want.sessions)
    withDb(workerHome, (db) => {
      expect(db.pragma('integrity_check', {simple: true})).toBe('ok')
      expect(transitionsProblems(db)).toEqual([])
    })
  }, 120_000)
})
