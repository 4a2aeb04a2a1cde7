/**
 * The daemon's `cast state` socket (src/lib/state/state-serve.ts) as an attacker on the same machine
 * uses it: a process that names another process's pid (one inside a session it does not run, its
 * descriptors one by one) gets nothing declared, and a request that is garbage, half sent or 10 MB
 * long gets one line in the daemon's log and a closed connection, and the daemon keeps answering.
 */
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import {type ChildProcess, spawn} from 'node:child_process'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {processStartTime} from '../../src/core/ingest/process-table.js'
import {Store} from '../../src/core/store/store.js'
import {protocolVersion, socketPath} from '../../src/lib/state/state-socket.js'
import {waitFor} from '../fakes/agents.js'
import {BIN, claudeLines, claudeTranscriptPath, json, makeHome, runCast, type TempHome, writeFile} from '../helpers/cli.js'

const VICTIM = 'aaaaaaaa-1111-4222-8333-0000000000f1'
const MINE = 'aaaaaaaa-1111-4222-8333-0000000000f2'
let h: TempHome
let daemon: ChildProcess
let log = ''
let victim: ChildProcess

/** A process claim on `pid` for `sessionId`, as a registry file gives one. */
function claim(sessionId: string, pid: number): void {
  const store = new Store(h.castHome)
  const data = {
    facts: {},
    processClaim: {heartbeatAt: null, pid, source: {kind: 'registry', ref: 'test'}, startedAt: processStartTime(pid), status: null},
  }
  store.tx(() => store.upsertContribution(`test://${pid}`, 'claude_code', 'registry', sessionId, JSON.stringify(data), Date.now()))
  store.close()
}

beforeEach(async () => {
  h = makeHome()
  const at = new Date(Date.now() - 60_000)
  for (const id of [VICTIM, MINE])
    writeFile(claudeTranscriptPath(h.home, '/src/app', id), claudeLines({at, cwd: '/src/app', prompt: `Task ${id}`, sessionId: id}))
  await runCast(['sessions', '--json'], {env: h.env})
  // The victim's agent: a shell with a child, claimed by the victim's session.
  victim = spawn('sh', ['-c', 'sleep 120 & wait'], {stdio: 'ignore'})
  claim(VICTIM, victim.pid!)
  claim(MINE, process.pid)
  log = ''
  daemon = spawn(process.execPath, [BIN, 'daemon'], {env: h.env, stdio: ['ignore', 'ignore', 'pipe']})
  daemon.stderr!.on('data', (c) => (log += String(c)))
  await waitFor(
    () => fs.existsSync(socketPath(h.castHome)) || null,
    30_000,
    () => log,
  )
})

afterEach(async () => {
  victim.kill('SIGKILL')
  if (daemon.exitCode === null && daemon.signalCode === null) {
    daemon.kill('SIGTERM')
    await new Promise((r) => daemon.once('exit', r))
  }

  h.cleanup()
})

/** Send raw bytes to the socket; what came back before it closed. */
function raw(bytes: string | Buffer, o: {end?: boolean; wait?: number} = {}): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(socketPath(h.castHome))
    let got = ''
    s.setEncoding('utf8')
    s.on('data', (c) => (got += c))
    s.on('error', () => resolve(got))
    s.on('close', () => resolve(got))
    s.on('connect', () => {
      s.write(bytes)
      if (o.end) s.end()
      if (o.wait) setTimeout(() => s.destroy(), o.wait)
    })
  })
}

const request = (pid: number, fd: number, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({argv: ['Forged'], device: 'x', fd, id: `forged.${pid}.${fd}`, pid, v: protocolVersion(), vars: {}, ...extra}) + '\n'

const stateLine = async (id: string): Promise<unknown> => json(await runCast(['explain', id, '--json'], {env: h.env})).session.state_line

describe("cast daemon's state socket, as an attacker uses it", () => {
  it("declares nothing for a request naming another process's pid (inside a session the sender does not run)", async () => {
    const child = await waitFor(
      () => Number(fs.readFileSync(`/proc/${victim.pid}/task/${victim.pid}/children`, 'utf8').trim()) || null,
      10_000,
    )
    const replies: string[] = []
    // The victim's child (its parent is the claimed process) and the claimed process itself, every
    // descriptor they may hold, with a made-up ancestry and start time for good measure.
    for (const pid of [child, victim.pid!])
      for (let fd = 0; fd < 8; fd++)
        replies.push(await raw(request(pid, fd, {ancestry: [victim.pid], ppid: victim.pid, startedAt: processStartTime(pid)})))

    expect(replies.map((r) => JSON.parse(r) as {ok: boolean}).every((r) => r.ok === false)).toBe(true)
    expect(await stateLine(VICTIM)).toBeNull()
    expect(log).toContain(`declined a request naming pid ${child}`)

    // A real caller, this test's own child, is proved and declares through the socket for the session claiming this test.
    const probe = path.join(h.dir, 'probe')
    const mine = await runCast(['state', 'Mine'], {
      env: {
        ...h.env,
        CAST_TEST_PROBE: probe,
        NODE_OPTIONS: `--import=${path.join(import.meta.dirname, '..', 'helpers', 'oclif-probe.mjs')}`,
      },
    })
    expect(mine).toMatchObject({code: 0, stderr: ''})
    expect(mine.stdout).toContain(`found via process tree (pid ${process.pid})`)
    expect(fs.readFileSync(probe, 'utf8')).toBe('socket\n')
    expect(await stateLine(MINE)).toMatchObject({text: 'Mine'})
    expect(await stateLine(VICTIM)).toBeNull()
  }, 60_000)

  it('answers garbage, a half request and a 10 MB request with one log line each, and keeps serving', async () => {
    const garbage = await raw('hello there\n')
    const half = await raw('{"v":"1/0.1.0","id":', {end: true})
    const huge = await raw(Buffer.alloc(10 * 1024 * 1024, 'a'))
    const stalled = await raw('{"v":', {wait: 3000})

    expect(JSON.parse(garbage)).toMatchObject({ok: false})
    expect(half + huge + stalled).toBe('')
    const lines = log.split('\n').filter((l) => l.includes("state's socket"))
    expect(lines.filter((l) => l.includes('not understood'))).toHaveLength(1)
    expect(lines.filter((l) => l.includes('ended before its newline'))).toHaveLength(1)
    expect(lines.filter((l) => l.includes('over 512 KB'))).toHaveLength(1)
    expect(lines.filter((l) => l.includes('no whole request within'))).toHaveLength(1)

    expect(daemon.exitCode).toBeNull()
    const after = await runCast(['state', '--session', MINE, 'Still here'], {env: h.env})
    expect(after).toMatchObject({code: 0, stderr: ''})
    expect(await stateLine(MINE)).toMatchObject({text: 'Still here'})

    // A daemon killed outright leaves its socket behind: nothing listens, and cast state declares itself.
    daemon.kill('SIGKILL')
    await new Promise((r) => daemon.once('exit', r))
    expect(fs.existsSync(socketPath(h.castHome))).toBe(true)
    const probe = path.join(h.dir, 'probe-stale')
    const stale = await runCast(['state', '--session', MINE, 'No daemon'], {
      env: {
        ...h.env,
        CAST_TEST_PROBE: probe,
        NODE_OPTIONS: `--import=${path.join(import.meta.dirname, '..', 'helpers', 'oclif-probe.mjs')}`,
      },
    })
    expect(stale).toMatchObject({code: 0, stderr: ''})
    expect(fs.readFileSync(probe, 'utf8')).toBe('fast\n')
    expect(await stateLine(MINE)).toMatchObject({text: 'No daemon'})
  }, 60_000)
})
