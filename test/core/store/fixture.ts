/**
 * A real store in a temporary CAST_HOME for the store family tests (test/core/store/*.test.ts),
 * and sessions to hang records on: each one settled, seen a minute before NOW.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, beforeEach} from 'vitest'

import {castId} from '../../../src/core/model/ids.js'
import {EMPTY_FACTS, type SessionFacts} from '../../../src/core/model/types.js'
import {Store} from '../../../src/core/store/store.js'

export const NOW = Date.parse('2026-12-01T12:00:00Z')
export const MINUTE = 60_000
export const HOUR = 60 * MINUTE

export const settled = (over: Partial<SessionFacts> = {}): SessionFacts => ({
  ...EMPTY_FACTS,
  cwd: '/src/app',
  lastActivityAt: NOW - MINUTE,
  messages: 2,
  settled: true,
  title: 'Fix the parser',
  turnIndex: 1,
  ...over,
})

export interface StoreFixture {
  readonly store: Store
  readonly home: string
  readonly dir: string
  /** A Claude Code session with native id `native`, placed at NOW; returns its cast id. */
  add(native: string, facts?: SessionFacts, parentNative?: string | null): string
  /** The session's row as every listing reads it. */
  row(id: string): ReturnType<Store['loadSessions']>[number]
}

/** Open a fresh store before each test of the calling file and remove it after. */
export function useStore(): StoreFixture {
  let dir = ''
  let store: Store | undefined
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-family-'))
    store = new Store(path.join(dir, 'cast'))
  })
  afterEach(() => {
    store?.close()
    fs.rmSync(dir, {force: true, recursive: true})
  })
  return {
    add(native, facts = settled(), parentNative = null) {
      const s = this.store
      s.upsertFacts('claude_code', native, facts, parentNative, {device: 'box', now: NOW, runner: 'me@example.com'})
      const id = castId('claude_code', native)
      s.reconcile(NOW, [id])
      return id
    },
    get dir() {
      return dir
    },
    get home() {
      return path.join(dir, 'cast')
    },
    row(id) {
      const [r] = this.store.loadSessions([id])
      if (!r) throw new Error(`no session ${id}`)
      return r
    },
    get store() {
      if (!store) throw new Error('the store opens in beforeEach')
      return store
    },
  }
}
