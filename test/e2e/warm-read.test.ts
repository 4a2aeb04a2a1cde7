/**
 * `cast sessions` and `cast status` answered by a running `cast daemon` over its socket
 * (src/lib/home/read-socket.ts, src/lib/cli/read-serve.ts): over the demo store, the bytes are those the same
 * commands print with no daemon, and the caller loads neither the store nor oclif (the probe says
 * "socket"). Without an answer it can trust (a daemon killed with its socket left behind, a
 * listener on the socket that lies about the reply or cuts it short, a flag the daemon leaves to
 * the caller) the caller answers itself, with the same bytes.
 */
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import {type ChildProcess, spawn} from 'node:child_process'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {protocolVersion, socketPath} from '../../src/lib/state/state-socket.js'
import {waitFor} from '../fakes/agents.js'
import {BIN, json, makeHome, runCast, type TempHome} from '../helpers/cli.js'

const PROBE = path.join(import.meta.dirname, '..', 'helpers', 'oclif-probe.mjs')
/** The commands compared, each as typed. */
const READS = [
  ['sessions'],
  ['sessions', '--json'],
  ['sessions', '--all'],
  ['sessions', '--all', '--json'],
  ['sessions', '--state', 'needs_input', '--json'],
  ['status'],
  ['status', '--json'],
  ['status', '--format', '{need}/{working}'],
]

let h: TempHome
let env: Record<string, string>
let daemon: ChildProcess | null = null
let log = ''
let n = 0
/** `cast status` reads for another identity than the daemon's: status.json, which the daemon keeps for its own, does not hold, so the count is asked for. */
const OTHER = 'someone-else@example.com'
const envFor = (args: readonly string[]): Record<string, string> => (args[0] === 'status' ? {...env, CAST_USER: OTHER} : env)

/** One run with the probe: its output and which path answered (oclif, fast: the store was opened, socket). */
async function probed(args: readonly string[], e: Record<string, string> = env): Promise<{code: number; out: string; via: string}> {
  const probe = path.join(h.dir, `probe-${n++}`)
  const r = await runCast(args, {env: {...e, CAST_TEST_PROBE: probe, NODE_OPTIONS: `--import=${PROBE}`}, timeout: 60_000})
  return {code: r.code, out: `${r.stdout}\u0000${r.stderr}`, via: fs.existsSync(probe) ? fs.readFileSync(probe, 'utf8').trim() : '?'}
}

/** Every read's output with no daemon running. */
const cold: Record<string, string> = {}

beforeAll(async () => {
  h = makeHome()
  const r = await runCast(['demo', '--keep', '--json'], {env: {...h.env, TMPDIR: h.dir}, timeout: 120_000})
  expect(r.code).toBe(0)
  const demo = json<{cast_home: string; generated_at: string; home: string}>(r)
  // A fixed clock a minute after the demo's: every run sees the same time.
  env = {...h.env, CAST_HOME: demo.cast_home, CAST_NOW: new Date(Date.parse(demo.generated_at) + 60_000).toISOString(), HOME: demo.home}
  // The stand-in agents stop as the demo ends: let the syncs record that before comparing.
  await runCast(['sessions', '--all'], {env})
  await runCast(['sessions', '--all'], {env})
  for (const args of READS) {
    const got = await probed(args, envFor(args))
    expect(got.code).toBe(0)
    // The store, or for status a status.json that still holds: never oclif.
    expect(got.via).not.toBe('oclif')
    cold[args.join(' ')] = got.out
  }

  const {CAST_NOW: _now, ...daemonEnv} = env
  daemon = spawn(process.execPath, [BIN, 'daemon'], {env: daemonEnv, stdio: ['ignore', 'ignore', 'pipe']})
  daemon.stderr!.on('data', (c) => (log += String(c)))
  await waitFor(
    () => fs.existsSync(socketPath(env.CAST_HOME!)) || null,
    30_000,
    () => log,
  )
}, 240_000)

afterAll(async () => {
  if (daemon && daemon.exitCode === null && daemon.signalCode === null) {
    daemon.kill('SIGTERM')
    await new Promise((r) => daemon!.once('exit', r))
  }

  h?.cleanup()
})

describe('reads answered by cast daemon', () => {
  it('prints the bytes the commands print without a daemon, through the socket', async () => {
    for (const args of READS) {
      const got = await probed(args, envFor(args))
      expect({args, via: got.via}).toEqual({args, via: 'socket'})
      expect(got.code).toBe(0)
      expect(got.out).toBe(cold[args.join(' ')])
    }
  }, 120_000)

  it('leaves to the caller what the daemon does not answer (--cwd), with the same bytes', async () => {
    const args = ['sessions', '--json', '--cwd', '/']
    const warm = await probed(args)
    expect(warm.via).toBe('fast')
    expect(warm.code).toBe(0)
  }, 60_000)

  it("answers itself when the socket is a killed daemon's, or a listener that lies or stops half way", async () => {
    daemon!.kill('SIGKILL')
    await new Promise((r) => daemon!.once('exit', r))
    const file = socketPath(env.CAST_HOME!)
    expect(fs.existsSync(file)).toBe(true)
    const compare = async (): Promise<void> => {
      for (const args of [['sessions', '--json'], ['sessions'], ['status', '--json']]) {
        // The count written for the last status run would answer this one without asking anyone.
        fs.rmSync(path.join(env.CAST_HOME!, 'status.json'), {force: true})
        const got = await probed(args, envFor(args))
        expect({args, via: got.via}).toEqual({args, via: 'fast'})
        expect(got.out).toBe(cold[args.join(' ')])
      }
    }

    await compare()
    // Listeners on the socket: a reply for another request id, a reply whose body is cut short, garbage.
    const lies = [
      (id: string) => JSON.stringify({bytes: 5, code: 0, id: `${id}x`, ok: true, v: protocolVersion()}) + '\nlies\n',
      (id: string) => JSON.stringify({bytes: 500, code: 0, id, ok: true, v: protocolVersion()}) + '\nnothing needs you\n',
      () => 'not json\n',
    ]
    for (const lie of lies) {
      fs.rmSync(file, {force: true})
      const server = net.createServer((s) => {
        let got = ''
        s.setEncoding('utf8')
        s.on('data', (c: string) => {
          got += c
          if (!got.includes('\n')) return
          const id = (JSON.parse(got.slice(0, got.indexOf('\n'))) as {id: string}).id
          s.end(lie(id))
        })
        s.on('error', () => {})
      })
      await new Promise<void>((resolve) => server.listen(file, resolve))
      fs.chmodSync(file, 0o600)
      try {
        await compare()
      } finally {
        await new Promise((r) => server.close(r))
      }
    }
  }, 180_000)
})
