/**
 * The daemon's `cast state` socket (src/lib/state/state-serve.ts, src/lib/state/state-socket.ts) when
 * something else is put where it listens, and when it is flooded. A FIFO or a symbolic link in
 * CAST_HOME/run/ in place of state.sock: the daemon says so in one line and leaves it, `cast state`
 * says so in one line, never blocks, never connects through the link (not even while the path is
 * swapped back and forth as it runs), and declares itself. A flood of idle connections and of
 * requests that each need a proof: the daemon holds a bounded number of descriptors, writes a
 * bounded number of log lines, and answers again once the flood stops.
 */
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import {type ChildProcess, spawn} from 'node:child_process'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {processStartTime} from '../../src/core/ingest/process-table.js'
import {Store} from '../../src/core/store/store.js'
import {MAX_CONNECTIONS} from '../../src/lib/state/state-serve.js'
import {protocolVersion, socketDir, socketPath} from '../../src/lib/state/state-socket.js'
import {waitFor} from '../fakes/agents.js'
import {BIN, claudeLines, claudeTranscriptPath, json, makeHome, runCast, type TempHome, writeFile} from '../helpers/cli.js'

const MINE = 'aaaaaaaa-1111-4222-8333-0000000000e1'
let h: TempHome
let daemon: ChildProcess | undefined
let log = ''
let attacker: net.Server | undefined
const stolen: string[] = []
let swapper: ChildProcess | undefined

beforeEach(async () => {
  h = makeHome()
  writeFile(
    claudeTranscriptPath(h.home, '/src/app', MINE),
    claudeLines({at: new Date(Date.now() - 60_000), cwd: '/src/app', prompt: 'Mine', sessionId: MINE}),
  )
  await runCast(['sessions', '--json'], {env: h.env})
  // A process claim on this test process, the parent of every cast it spawns (the process tree).
  const store = new Store(h.castHome)
  const claim = {
    processClaim: {
      heartbeatAt: null,
      pid: process.pid,
      source: {kind: 'registry', ref: 'test'},
      startedAt: processStartTime(process.pid),
      status: null,
    },
  }
  store.tx(() => store.upsertContribution('test://mine', 'claude_code', 'registry', MINE, JSON.stringify(claim), Date.now()))
  store.close()
  log = ''
  stolen.length = 0
  // The attacker's listener a link may point at: it records every connection and every byte.
  attacker = net.createServer((s) => {
    stolen.push('<connection>')
    s.on('data', (c) => stolen.push(String(c)))
  })
  await new Promise<void>((r) => attacker!.listen(path.join(h.dir, 'attacker.sock'), r))
})

afterEach(async () => {
  swapper?.kill('SIGKILL')
  swapper = undefined
  await stopDaemon()
  await new Promise((r) => attacker?.close(r))
  h.cleanup()
})

async function startDaemon(): Promise<void> {
  daemon = spawn(process.execPath, [BIN, 'daemon'], {env: h.env, stdio: ['ignore', 'ignore', 'pipe']})
  daemon.stderr!.on('data', (c) => (log += String(c)))
  await waitFor(
    async () => json(await runCast(['daemon', 'status', '--json'], {env: h.env})).running === true,
    60_000,
    () => log,
  )
}

/** The daemon's socket is made after `daemon status` says running: wait for it. */
async function listening(): Promise<void> {
  await waitFor(
    () => fs.lstatSync(socketPath(h.castHome), {throwIfNoEntry: false})?.isSocket() === true,
    60_000,
    () => log,
  )
}

async function stopDaemon(): Promise<void> {
  if (daemon && daemon.exitCode === null && daemon.signalCode === null) {
    daemon.kill('SIGTERM')
    await new Promise((r) => daemon!.once('exit', r))
  }

  daemon = undefined
}

const probeEnv = (probe: string): Record<string, string> => ({
  ...h.env,
  CAST_TEST_PROBE: probe,
  NODE_OPTIONS: `--import=${path.join(import.meta.dirname, '..', 'helpers', 'oclif-probe.mjs')}`,
})
const stateText = async (): Promise<unknown> =>
  (json(await runCast(['explain', MINE, '--json'], {env: h.env})).session.state_line as {text?: string} | null)?.text
const socketLines = (): string[] => log.split('\n').filter((l) => l.includes("cast state's socket"))
const fdCount = (pid: number): number => fs.readdirSync(`/proc/${pid}/fd`).length

describe("something else in place of cast state's socket", () => {
  it('a FIFO there before the daemon starts: the daemon leaves it, and cast state neither blocks on it nor stays silent', async () => {
    fs.mkdirSync(socketDir(h.castHome), {mode: 0o700})
    spawn('mkfifo', [socketPath(h.castHome)]).once('exit', () => {})
    await waitFor(() => fs.existsSync(socketPath(h.castHome)), 10_000)
    await startDaemon()
    await waitFor(
      () => socketLines().length > 0,
      30_000,
      () => log,
    )
    expect(socketLines()).toEqual([expect.stringContaining(`${socketPath(h.castHome)} is a FIFO, not a socket; left as it is`)])

    const said = await runCast(['state', '--session', MINE, 'Past the FIFO'], {env: h.env, timeout: 60_000})
    expect(said.code).toBe(0)
    expect(said.stderr).toBe(`cast: ${socketPath(h.castHome)} is a FIFO, not cast daemon's socket: not connected to\n`)
    expect(said.stdout).toContain('Past the FIFO')
    expect(await stateText()).toBe('Past the FIFO')
    await stopDaemon()
    expect(fs.lstatSync(socketPath(h.castHome)).isFIFO()).toBe(true)
  }, 120_000)

  it('a symbolic link swapped in while the daemon runs: never connected through, said in one line, left in place at stop', async () => {
    await startDaemon()
    await listening()
    fs.rmSync(socketPath(h.castHome))
    fs.symlinkSync(path.join(h.dir, 'attacker.sock'), socketPath(h.castHome))

    const probe = path.join(h.dir, 'probe')
    const said = await runCast(['state', '--session', MINE, 'Not through the link'], {env: probeEnv(probe)})
    expect(said.code).toBe(0)
    expect(said.stderr).toBe(`cast: ${socketPath(h.castHome)} is a symbolic link, not cast daemon's socket: not connected to\n`)
    expect(fs.readFileSync(probe, 'utf8')).toBe('fast\n')
    expect(await stateText()).toBe('Not through the link')
    expect(stolen).toEqual([])

    await stopDaemon()
    expect(fs.lstatSync(socketPath(h.castHome)).isSymbolicLink()).toBe(true)
    expect(stolen).toEqual([])
  }, 120_000)

  it('the path swapped between the real socket and a link as fast as a loop can: no cast state ever reaches the link', async () => {
    await startDaemon()
    const sock = socketPath(h.castHome)
    // The real socket kept under a second name (a hard link), renamed over the path in turn with a link to the attacker.
    const script = `
import os, sys
run, sock, evil = sys.argv[1], sys.argv[2], sys.argv[3]
real = os.path.join(run, '.real')
os.link(sock, real)
i = 0
while True:
    i += 1
    tmp = os.path.join(run, '.t%d' % i)
    if i % 2:
        os.symlink(evil, tmp)
    else:
        os.link(real, tmp)
    os.rename(tmp, sock)
`
    swapper = spawn('python3', ['-c', script, socketDir(h.castHome), sock, path.join(h.dir, 'attacker.sock')], {stdio: 'ignore'})
    await waitFor(() => fs.existsSync(path.join(socketDir(h.castHome), '.real')), 10_000)

    const codes: number[] = []
    for (let i = 0; i < 20; i++) {
      const said = await runCast(['state', '--session', MINE, `Swap ${i}`], {env: h.env})
      codes.push(said.code)
      expect(['', `cast: ${sock} is a symbolic link, not cast daemon's socket: not connected to\n`]).toContain(said.stderr)
    }

    expect(codes.every((c) => c === 0)).toBe(true)
    expect(stolen).toEqual([])
    expect(await stateText()).toBe('Swap 19')
  }, 180_000)
})

describe("a flood on cast state's socket", () => {
  it('idle connections by the hundred and requests that each need a proof: bounded descriptors and log, answering again after', async () => {
    await startDaemon()
    await listening()
    const pid = daemon!.pid!
    const before = fdCount(pid)
    const file = socketPath(h.castHome)
    const held: net.Socket[] = []
    let most = before
    for (let i = 0; i < 600; i++) {
      const s = net.connect(file)
      s.on('error', () => {})
      held.push(s)
      if (i % 50 === 49) {
        await new Promise((r) => setTimeout(r, 50))
        most = Math.max(most, fdCount(pid))
      }
    }

    for (let i = 0; i < 20; i++) {
      most = Math.max(most, fdCount(pid))
      await new Promise((r) => setTimeout(r, 100))
    }

    // cast state still answers (by the daemon or by itself), and so does the daemon's status.
    const during = await runCast(['state', '--session', MINE, 'During the flood'], {env: h.env})
    expect(during.code).toBe(0)
    expect(json(await runCast(['daemon', 'status', '--json'], {env: h.env})).running).toBe(true)
    for (const s of held) s.destroy()

    // Requests naming a process that holds a socket (the daemon itself and its descriptors): each
    // needs `ss` to be refused. Half the senders read the reply; the other half never read nor
    // close, so their end never sees the reply end: they must not keep the daemon's slots.
    const deaf: net.Socket[] = []
    const forged = (fd: number, reads: boolean): Promise<void> =>
      new Promise((resolve) => {
        const s = net.connect(file)
        s.on('error', () => resolve())
        s.on('close', () => resolve())
        if (reads) s.on('data', () => {})
        else {
          deaf.push(s)
          resolve()
        }

        s.on('connect', () =>
          s.write(
            JSON.stringify({argv: ['Forged'], device: 'x', fd, id: `flood.${fd}.${Math.random()}`, pid, v: protocolVersion(), vars: {}}) +
              '\n',
          ),
        )
      })
    await Promise.all(Array.from({length: 300}, (_, i) => forged(i % 40, i % 2 === 0)))
    most = Math.max(most, fdCount(pid))

    // 600 idle connections and 300 requests: unbounded, the count would grow by hundreds. Beside the
    // 32 connections, the daemon's own work holds a varying few dozen (the `ss` proofs' pipes, its
    // ingest passes' files, a read worker): 74 seen on a loaded machine.
    expect(most - before).toBeLessThanOrEqual(MAX_CONNECTIONS + 100)
    expect(socketLines().length).toBeLessThanOrEqual(12)
    expect(daemon!.exitCode).toBeNull()
    // After the flood the daemon answers again through its socket.
    const probe = path.join(h.dir, 'probe-after')
    await waitFor(
      async () => {
        fs.rmSync(probe, {force: true})
        const r = await runCast(['state', '--session', MINE, 'After the flood'], {env: probeEnv(probe)})
        return r.code === 0 && fs.readFileSync(probe, 'utf8') === 'socket\n'
      },
      60_000,
      () => log,
    )
    expect(await stateText()).toBe('After the flood')
    for (const s of deaf) s.destroy()
  }, 180_000)
})
