import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {storeChangeKey} from '../../../src/core/store/screen.js'
import {Store} from '../../../src/core/store/store.js'

let dir: string
let store: Store
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-key-'))
  store = new Store(path.join(dir, 'cast'))
})
afterEach(() => {
  store.close()
  fs.rmSync(dir, {force: true, recursive: true})
})

describe('the store change key the pane ties are kept by', () => {
  it('stays the same across the live ingester’s lease heartbeats, and moves with a write that a tie can depend on', () => {
    const now = Date.now()
    expect(store.acquireLease('ingester', {host: 'box', pid: process.pid}, now, () => true)).toBe(true)
    const before = storeChangeKey(store)

    store.heartbeatLease('ingester', process.pid, now + 2000)
    store.heartbeatLease('ingester', process.pid, now + 4000)
    const beaten = storeChangeKey(store)
    store.upsertContribution('screen://tmux/x/%1', 'claude_code', 'screen', 'n1', '{"facts":{}}', now)
    const written = storeChangeKey(store)

    expect(beaten).toBe(before)
    expect(written).not.toBe(before)
  })
})
