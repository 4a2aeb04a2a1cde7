/**
 * A transcript cast read before it counted holds (its stored parser state has no holds) is not
 * resumed mid-file: when it next grows it is read again from its start, so the usage is the
 * whole file's, not only the lines after the upgrade. Real engine, real SQLite store.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, beforeEach, expect, it} from 'vitest'

import {ADAPTERS} from '../../../src/adapters/index.js'
import {Ingester} from '../../../src/core/ingest/engine.js'
import {Store} from '../../../src/core/store/store.js'
import {claudeTranscriptPath, writeFile} from '../../helpers/cli.js'

const SID = '11111111-2222-4333-8444-555555555556'
const CWD = '/src/app'
let dir: string
let home: string
let store: Store
let ingester: Ingester
const clock = Date.parse('2026-11-29T12:00:00Z')

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-holds-up-'))
  home = path.join(dir, 'home')
  fs.mkdirSync(home)
  store = new Store(path.join(dir, 'cast'))
  ingester = new Ingester(store, ADAPTERS, {env: {HOME: home}, home}, {clock: () => clock, device: 'box', me: 'me@example.com'})
})
afterEach(() => {
  store.close()
  fs.rmSync(dir, {force: true, recursive: true})
})

const line = (type: 'user' | 'assistant', n: number): string =>
  JSON.stringify({
    cwd: CWD,
    message:
      type === 'user'
        ? {content: `prompt ${n}`, role: 'user'}
        : {
            content: [{text: `reply ${n}`, type: 'text'}],
            id: `msg_${n}`,
            model: 'claude-x',
            role: 'assistant',
            usage: {input_tokens: 10, output_tokens: n},
          },
    sessionId: SID,
    timestamp: new Date(clock - 60_000 + n * 1000).toISOString(),
    type,
    uuid: `${type}${n}`,
  }) + '\n'

it('an old state is read again from the start when the file grows: the usage is the whole file', () => {
  const file = claudeTranscriptPath(home, CWD, SID)
  writeFile(file, line('user', 1) + line('assistant', 1) + line('user', 2) + line('assistant', 2))
  ingester.sync()
  expect(store.loadSessions()[0]!.tree?.usage).toEqual({cacheRead: 0, cacheWrite: 0, input: 20, output: 3})

  // As an older cast left it: the parser state without the holds, the facts without them.
  const state = JSON.parse(
    String((store.db.prepare('SELECT state FROM files WHERE path = ?').get(file) as {state: string}).state),
  ) as Record<string, unknown>
  delete state['holds$']
  store.db.prepare('UPDATE files SET state = ? WHERE path = ?').run(JSON.stringify(state), file)

  fs.appendFileSync(file, line('user', 3) + line('assistant', 3))
  ingester.sync()
  expect(store.loadSessions()[0]!.tree?.usage).toEqual({cacheRead: 0, cacheWrite: 0, input: 30, output: 6})
  expect(store.loadSessions()[0]!.facts.messages).toBe(6)
})
