/**
 * Runs listed from their process before the agent wrote a file (src/core/ingest/unwritten-runs.ts),
 * with real processes: a node process titled `pi` (as pi titles itself), its stdout a pipe.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {ADAPTERS} from '../../../src/adapters/index.js'
import {Ingester} from '../../../src/core/ingest/engine.js'
import {processStartTime} from '../../../src/core/ingest/process-table.js'
import {scanUnwrittenRuns} from '../../../src/core/ingest/unwritten-runs.js'
import {Store} from '../../../src/core/store/store.js'

let dir: string
let home: string
let proj: string
let store: Store
let ingester: Ingester
const children: ChildProcess[] = []
const names = new Map([['pi', 'pi']])

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-runs-'))
  home = path.join(dir, 'home')
  proj = path.join(dir, 'proj')
  fs.mkdirSync(path.join(home, '.pi', 'agent', 'sessions'), {recursive: true})
  fs.mkdirSync(proj)
  store = new Store(path.join(dir, 'cast'))
  ingester = new Ingester(store, ADAPTERS, {env: {HOME: home}, home}, {clock: () => Date.now(), device: 'box', me: 'me@example.com'})
})
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL')
  store.close()
  fs.rmSync(dir, {force: true, recursive: true})
})

/** A stand-in `pi -p`: titled pi, in `cwd`, HOME `h`, stdout a pipe; resolves once /proc shows the title. */
async function fakePi(h: string, cwd = proj): Promise<ChildProcess> {
  const c = spawn(process.execPath, ['-e', "process.title = 'pi'; setInterval(() => {}, 1000)"], {
    cwd,
    env: {HOME: h, PATH: process.env.PATH ?? ''},
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  children.push(c)
  for (let i = 0; i < 100; i++) {
    if (fs.readFileSync(`/proc/${c.pid}/comm`, 'utf8').trim() === 'pi' && processStartTime(c.pid!) !== null) break
    await new Promise((r) => setTimeout(r, 50))
  }
  return c
}

const scan = () => scanUnwrittenRuns(store, ingester, {names, now: Date.now()})
const piRows = () => store.loadSessions().filter((s) => s.agent === 'pi')

describe('a headless run before its first file', () => {
  it('is listed working from its process, and reads dead once the process is gone', async () => {
    const c = await fakePi(home)
    scan()
    expect(piRows()).toHaveLength(1)
    expect(piRows()[0]).toMatchObject({reason: 'turn_pending', state: 'working'})
    expect(piRows()[0]!.facts).toMatchObject({cwd: proj, messages: 1, process: {alive: true, pid: c.pid}})
    c.kill('SIGKILL')
    await new Promise((r) => c.once('exit', r))
    ingester.recheckProcesses()
    scan()
    expect(piRows()[0]).toMatchObject({reason: 'dead', state: 'needs_input'})
  })

  it("is not listed for a process that writes under another HOME (another user's or test's pi)", async () => {
    const other = path.join(dir, 'other-home')
    fs.mkdirSync(other)
    await fakePi(other)
    scan()
    expect(piRows()).toEqual([])
  })

  it('gives way to the session the agent then writes in its folder', async () => {
    await fakePi(home)
    scan()
    expect(piRows()).toHaveLength(1)
    const id = '01a23365-fdd5-7637-9ec6-20c68a1d6664'
    const now = new Date()
    const file = path.join(
      home,
      '.pi',
      'agent',
      'sessions',
      `--${proj.slice(1).replaceAll('/', '-')}--`,
      `${now.toISOString().replace(/[:.]/g, '-')}_${id}.jsonl`,
    )
    fs.mkdirSync(path.dirname(file), {recursive: true})
    fs.writeFileSync(
      file,
      [
        {cwd: proj, id, timestamp: now.toISOString(), type: 'session', version: 3},
        {
          id: 'u1',
          message: {content: [{text: 'q', type: 'text'}], role: 'user', timestamp: now.getTime()},
          parentId: null,
          timestamp: now.toISOString(),
          type: 'message',
        },
        {
          id: 'a1',
          message: {content: [{text: 'a', type: 'text'}], role: 'assistant', stopReason: 'stop', timestamp: now.getTime()},
          parentId: 'u1',
          timestamp: now.toISOString(),
          type: 'message',
        },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    )
    ingester.sync()
    scan()
    expect(piRows().map((r) => r.nativeId)).toEqual([id])
  })
})
