import {spawn} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {ADAPTERS} from '../../../src/adapters/index.js'
import {Ingester, readLines} from '../../../src/core/ingest/engine.js'
import {processStartTime} from '../../../src/core/ingest/process-table.js'
import {Store} from '../../../src/core/store/store.js'
import {claudeLines, claudeTranscriptPath, writeFile} from '../../helpers/cli.js'

const SID = '11111111-2222-4333-8444-555555555555'
const CWD = '/src/app'
let dir: string
let home: string
let store: Store
let clock: number
let ingester: Ingester

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-engine-'))
  home = path.join(dir, 'home')
  fs.mkdirSync(home)
  store = new Store(path.join(dir, 'cast'))
  clock = Date.parse('2026-11-29T12:00:00Z')
  ingester = new Ingester(store, ADAPTERS, {env: {HOME: home}, home}, {clock: () => clock, device: 'box', me: 'me@example.com'})
})
afterEach(() => {
  store.close()
  fs.rmSync(dir, {force: true, recursive: true})
})

const transcript = (): string => claudeTranscriptPath(home, CWD, SID)
const userLine = (text: string, at: Date, uuid = 'u2'): string =>
  JSON.stringify({
    cwd: CWD,
    message: {content: text, role: 'user'},
    parentUuid: 'a1',
    sessionId: SID,
    timestamp: at.toISOString(),
    type: 'user',
    uuid,
  }) + '\n'
const row = () => store.loadSessions()[0]!

describe('incremental ingest of Claude Code transcripts', () => {
  it('indexes a session and reads nothing on a no-op resync', () => {
    writeFile(transcript(), claudeLines({at: new Date(clock - 120_000), cwd: CWD, prompt: 'Fix the parser', sessionId: SID}))

    const first = ingester.sync()
    const second = ingester.sync()

    expect(first.read).toBe(1)
    expect(row()).toMatchObject({reason: 'settled', state: 'needs_input'})
    expect(row().facts).toMatchObject({cwd: CWD, messages: 2, title: 'Fix the parser'})
    expect(second.read).toBe(0)
    expect(second.bytes).toBe(0)
  })

  it('reads only the appended bytes, and a partial last line waits for its newline', () => {
    writeFile(transcript(), claudeLines({at: new Date(clock - 120_000), cwd: CWD, prompt: 'Fix the parser', sessionId: SID}))
    ingester.sync()
    const size = fs.statSync(transcript()).size
    const next = userLine('Now add a test', new Date(clock - 60_000))

    fs.appendFileSync(transcript(), next.slice(0, 40))
    const partial = ingester.sync()
    expect(partial.lines).toBe(0)
    expect(store.loadFiles().get(transcript())!.offset).toBe(size)
    expect(row().facts.messages).toBe(2)

    fs.appendFileSync(transcript(), next.slice(40))
    const whole = ingester.sync()
    expect(whole.lines).toBe(1)
    expect(whole.bytes).toBe(Buffer.byteLength(next))
    expect(row().facts).toMatchObject({messages: 3, settled: false, turnIndex: 2})
    expect(row()).toMatchObject({reason: 'turn_pending', state: 'working'})
  })

  it('skips and counts a malformed line without losing the rest', () => {
    writeFile(
      transcript(),
      claudeLines({at: new Date(clock - 120_000), cwd: CWD, prompt: 'Fix the parser', sessionId: SID}) +
        '{"type":"user", oops\n' +
        userLine('Next', new Date(clock - 1000)),
    )

    const stats = ingester.sync()

    expect(stats.parseErrors).toBe(1)
    expect(store.totalParseErrors()).toBe(1)
    expect(row().facts.messages).toBe(3)
  })

  it('re-reads a file that shrank or was replaced', () => {
    writeFile(
      transcript(),
      claudeLines({at: new Date(clock - 120_000), cwd: CWD, prompt: 'First version of the session', sessionId: SID}) +
        userLine('more', new Date(clock - 90_000)),
    )
    ingester.sync()
    expect(row().facts.messages).toBe(3)

    const replacement = transcript() + '.new'
    writeFile(replacement, claudeLines({at: new Date(clock - 30_000), cwd: CWD, prompt: 'Rewritten', sessionId: SID}))
    fs.renameSync(replacement, transcript())
    ingester.sync()

    expect(row().facts).toMatchObject({messages: 2, title: 'Rewritten'})
  })

  it('reads a line longer than the read chunk whole, and skips and counts one longer than the limit', () => {
    const fd = fs.openSync(path.join(dir, 'big.jsonl'), 'w')
    fs.writeSync(fd, '{"a":1}\n')
    fs.writeSync(fd, 'x'.repeat(3 * 1024 * 1024))
    fs.writeSync(fd, '\n{"b":2}\n')
    fs.closeSync(fd)
    const seen: string[] = []
    const rfd = fs.openSync(path.join(dir, 'big.jsonl'), 'r')

    const r = readLines(rfd, 0, fs.statSync(path.join(dir, 'big.jsonl')).size, (t) => seen.push(t.slice(0, 10)))
    fs.closeSync(rfd)

    expect(seen).toEqual(['{"a":1}', 'x'.repeat(10), '{"b":2}'])
    expect(r.oversize).toBe(0)
    expect(r.offset).toBe(fs.statSync(path.join(dir, 'big.jsonl')).size)

    const small: string[] = []
    const fd2 = fs.openSync(path.join(dir, 'big.jsonl'), 'r')
    const r2 = readLines(fd2, 0, fs.statSync(path.join(dir, 'big.jsonl')).size, (t) => small.push(t), 2 * 1024 * 1024)
    fs.closeSync(fd2)
    expect(small).toEqual(['{"a":1}', '{"b":2}'])
    expect(r2.oversize).toBe(1)
  })

  it('turns a stale registry (dead pid) into needs_input/dead and a live one into working', () => {
    writeFile(transcript(), claudeLines({at: new Date(clock - 120_000), cwd: CWD, prompt: 'Long job', sessionId: SID, settled: false}))
    const registry = path.join(home, '.claude', 'sessions', `${process.pid}.json`)
    writeFile(
      registry,
      JSON.stringify({
        cwd: CWD,
        pid: process.pid,
        sessionId: SID,
        startedAt: Math.round(processStartTime(process.pid)!),
        status: 'busy',
        updatedAt: clock,
      }),
    )
    ingester.sync()
    expect(row()).toMatchObject({reason: 'producing', state: 'working'})

    fs.rmSync(registry)
    const dead = path.join(home, '.claude', 'sessions', '999999.json')
    writeFile(
      dead,
      JSON.stringify({cwd: CWD, pid: 999_999, sessionId: SID, startedAt: clock - 100_000, status: 'busy', updatedAt: clock - 100_000}),
    )
    ingester.sync()

    expect(row()).toMatchObject({reason: 'dead', state: 'needs_input'})
    expect(row().facts.process).toMatchObject({alive: false, pid: 999_999})
  })

  it('a registry deleted on a clean exit takes its claim with it, also in a pass limited to changed paths', () => {
    // The live ingester coalesces a registry rewrite and its deletion (Claude Code 2.1.332 goes from
    // `busy` straight to removed) into one pass over the changed paths, not a full one.
    writeFile(transcript(), claudeLines({at: new Date(clock - 120_000), cwd: CWD, prompt: 'Short job', sessionId: SID}))
    const registry = path.join(home, '.claude', 'sessions', '999998.json')
    writeFile(
      registry,
      JSON.stringify({cwd: CWD, pid: 999_998, sessionId: SID, startedAt: clock - 100_000, status: 'busy', updatedAt: clock - 100_000}),
    )
    ingester.sync()
    expect(row().facts.process).toMatchObject({alive: false, pid: 999_998})
    fs.rmSync(registry)
    ingester.sync(new Set([registry]))
    expect(row().facts.process).toBeNull()
    expect(row()).toMatchObject({reason: 'settled', state: 'needs_input'})
  })

  it('the process re-check forgets a claim whose registry is gone before it reads the exit as a crash', async () => {
    writeFile(transcript(), claudeLines({at: new Date(clock - 120_000), cwd: CWD, prompt: 'Short job', sessionId: SID}))
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {stdio: 'ignore'})
    const registry = path.join(home, '.claude', 'sessions', `${child.pid}.json`)
    const startedAt = Math.round(processStartTime(child.pid!)!)
    writeFile(registry, JSON.stringify({cwd: CWD, pid: child.pid, sessionId: SID, startedAt, status: 'idle', updatedAt: clock}))
    ingester.sync()
    expect(row().facts.process).toMatchObject({alive: true, pid: child.pid})
    // The clean exit: the file goes, then the process; the re-check runs before any watcher event.
    fs.rmSync(registry)
    child.kill('SIGKILL')
    await new Promise((r) => child.once('exit', r))
    ingester.recheckProcesses()
    expect(row().facts.process).toBeNull()
    expect(row()).toMatchObject({reason: 'settled', state: 'needs_input'})
  })
})

describe('files rewritten in place', () => {
  it('starts over when the bytes before the stored offset changed (same inode, larger file)', () => {
    writeFile(transcript(), claudeLines({at: new Date(clock - 120_000), cwd: CWD, prompt: 'Old format', sessionId: SID}))
    ingester.sync()
    expect(row().facts.messages).toBe(2)

    // Same inode, rewritten with different (longer) content: e.g. an agent migrating its file format.
    const rewritten =
      claudeLines({at: new Date(clock - 60_000), cwd: CWD, prompt: 'New format, a longer first prompt', sessionId: SID}) +
      userLine('and more', new Date(clock - 30_000))
    fs.writeFileSync(transcript(), rewritten)
    ingester.sync()

    expect(row().facts).toMatchObject({messages: 3, title: 'New format, a longer first prompt'})
    expect(store.totalParseErrors()).toBe(0)
  })
})
