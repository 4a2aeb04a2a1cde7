import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {Store} from '../../../src/core/store/store.js'
import {statusKeeper} from '../../../src/lib/notify/status-keeper.js'

let dir: string
let store: Store
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-keeper-'))
  store = new Store(path.join(dir, 'cast'))
})
afterEach(() => {
  store.close()
  fs.rmSync(dir, {force: true, recursive: true})
})

const entry = () => JSON.parse(fs.readFileSync(path.join(store.home, 'status.json'), 'utf8')) as {valid_until: number; line: string}
const lineIno = () => fs.statSync(path.join(store.home, 'status.line')).ino

describe('the status keeper of cast daemon', () => {
  it('when only the 60 s cap runs out, the last count is written again as valid, without counting (the line file is left alone); a config change counts again', () => {
    const config = path.join(dir, 'config.json')
    fs.writeFileSync(config, '{}')
    let now = Date.parse('2026-12-01T12:00:00Z')
    const keeper = statusKeeper(store, {CAST_USER: 'me@example.com'}, () => now, 'me@example.com', null, config)
    keeper.tick()
    const first = entry()
    const ino = lineIno()

    now += 61_000
    keeper.tick()
    const second = entry()
    const same = lineIno()
    fs.writeFileSync(config, '{"recency": "3d"}\n')
    now += 61_000
    keeper.tick()

    expect(second.valid_until).toBeGreaterThan(now - 61_000)
    expect(second.line).toBe(first.line)
    expect(same).toBe(ino)
    expect(lineIno()).not.toBe(ino)
  })
})
