/**
 * The pi adapter under the real ingest engine and store: discovery under PI_CODING_AGENT_DIR,
 * incremental reads, a partial last line, malformed lines, and a file replaced at its path.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {pi} from '../../../src/adapters/pi/index.js'
import {Ingester} from '../../../src/core/ingest/engine.js'
import {Store} from '../../../src/core/store/store.js'
import {REAL, sessionPath} from './helpers.js'

let dir: string
let agent: string
let store: Store
let ingester: Ingester
const clock = Date.parse('2026-08-01T10:12:00.000Z')

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-pi-'))
  agent = path.join(dir, 'pi-agent')
  store = new Store(path.join(dir, 'cast'))
  ingester = new Ingester(
    store,
    [pi],
    {env: {PI_CODING_AGENT_DIR: agent}, home: path.join(dir, 'home')},
    {clock: () => clock, device: 'box', me: 'me@example.com'},
  )
})
afterEach(() => {
  store.close()
  fs.rmSync(dir, {force: true, recursive: true})
})

/** Copy fixture session n into the temp agent dir, under the same relative path. */
function place(n: number): string {
  const src = sessionPath(n)
  const rel = src.slice(src.indexOf(`${path.sep}sessions${path.sep}`) + 1)
  const dest = path.join(agent, rel)
  fs.mkdirSync(path.dirname(dest), {recursive: true})
  fs.copyFileSync(src, dest)
  return dest
}

const rows = () => store.loadSessions()
const byTitle = (t: string) => rows().find((r) => r.facts.title === t)!

describe('pi through the ingest engine', () => {
  it('finds sessions under PI_CODING_AGENT_DIR and classifies them', () => {
    place(1)
    place(2)
    place(3)
    place(5)

    ingester.sync()

    expect(rows()).toHaveLength(4)
    expect(byTitle('Add pagination to the /users endpoint')).toMatchObject({agent: 'pi', reason: 'settled', state: 'needs_input'})
    expect(byTitle('Run the e2e suite and fix what fails')).toMatchObject({reason: 'turn_pending', state: 'working'})
    expect(byTitle('Summarize the open issues')).toMatchObject({bucket: 'needs_input', reason: 'error', state: 'needs_input'})
    expect(byTitle('README rewrite')).toMatchObject({reason: 'settled'})
  })

  it('reads appended lines only, and a partial line waits for its newline', () => {
    const file = place(2)
    ingester.sync()
    const size = fs.statSync(file).size
    const reply =
      JSON.stringify({
        id: '0b0b0b05',
        message: {
          content: [{text: '3 tests fixed.', type: 'text'}],
          model: 'gpt-5.1-codex',
          provider: 'openai',
          role: 'assistant',
          stopReason: 'stop',
          timestamp: clock - 5000,
        },
        parentId: '0b0b0b04',
        timestamp: new Date(clock - 4000).toISOString(),
        type: 'message',
      }) + '\n'

    fs.appendFileSync(file, reply.slice(0, 50))
    const partial = ingester.sync()
    expect(partial.lines).toBe(0)
    expect(rows()[0]!.state).toBe('working')

    fs.appendFileSync(file, reply.slice(50))
    const whole = ingester.sync()
    expect(whole.lines).toBe(1)
    expect(whole.bytes).toBe(Buffer.byteLength(reply))
    expect(store.loadFiles().get(file)!.offset).toBe(size + Buffer.byteLength(reply))
    expect(rows()[0]).toMatchObject({reason: 'settled', state: 'needs_input'})
    expect(rows()[0]!.facts).toMatchObject({lastAssistantText: '3 tests fixed.', messages: 3, settled: true})
  })

  it('a malformed line is skipped and counted; the listing goes on', () => {
    place(12)
    place(1)

    const stats = ingester.sync()

    expect(stats.parseErrors).toBe(1)
    expect(rows()).toHaveLength(2)
    expect(byTitle('Bump the dependencies')).toMatchObject({state: 'needs_input'})
    expect(byTitle('Bump the dependencies').facts.parseErrors).toBe(1)
  })

  it('a file replaced at the same path is read again from the start', () => {
    const file = place(2)
    ingester.sync()
    expect(rows()[0]!.state).toBe('working')

    // Written beside and renamed over: a new file at the same path.
    fs.copyFileSync(sessionPath(1), `${file}.tmp`)
    fs.renameSync(`${file}.tmp`, file)
    ingester.sync()

    expect(rows()).toHaveLength(1)
    expect(rows()[0]!.facts).toMatchObject({messages: 3, settled: true, title: 'Add pagination to the /users endpoint'})
  })

  it('the real v1 file: a turn left running for months reads unresponsive, with its model', () => {
    const dest = path.join(
      agent,
      'sessions',
      '--Users-badlogic-workspaces-pi-mono--',
      '2025-11-20T23-33-50-805Z_d703a1a9-1b7b-4fb1-b512-c9738b1fe617.jsonl',
    )
    fs.mkdirSync(path.dirname(dest), {recursive: true})
    fs.copyFileSync(REAL, dest)

    ingester.sync()

    expect(rows()[0]).toMatchObject({nativeId: 'd703a1a9-1b7b-4fb1-b512-c9738b1fe617', reason: 'unresponsive', state: 'needs_input'})
    expect(rows()[0]!.facts).toMatchObject({cwd: '/Users/badlogic/workspaces/pi-mono', messages: 6, model: 'claude-sonnet-4-5'})
  })

  it('an empty agent dir, or none at all, lists nothing and does not fail', () => {
    expect(() => ingester.sync()).not.toThrow()
    fs.mkdirSync(path.join(agent, 'sessions', '--x--'), {recursive: true})
    fs.writeFileSync(path.join(agent, 'sessions', '--x--', 'empty.jsonl'), '')
    ingester.sync()
    expect(rows()).toHaveLength(0)
  })
})
