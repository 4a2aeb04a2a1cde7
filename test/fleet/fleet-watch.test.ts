/**
 * `cast sessions -w --json --fleet` over a real loopback sshd: the host's transitions arrive with
 * `host` and namespaced ids; when the ssh child is killed mid-stream the stream resumes from the last
 * seq: every transition of the host's log arrives once (0 lost, 0 doubled).
 */
import {execFileSync} from 'node:child_process'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {json, killStarted, runCast, startCast} from '../helpers/cli.js'
import {makeFleetHome, seedSession, type FleetHome} from './fleet-env.js'
import {SSHD_AVAILABLE, startSshd, type Sshd} from './sshd.js'

describe.skipIf(!SSHD_AVAILABLE)('cast sessions -w --json --fleet', () => {
  let a: Sshd
  let home: FleetHome
  const remoteEnv = (): Record<string, string> => ({
    CAST_HOME: a.remoteCastHome,
    CAST_USER: 'remote@example.com',
    HOME: a.remoteHome,
    NO_COLOR: '1',
    PATH: process.env.PATH!,
  })
  beforeAll(async () => {
    a = await startSshd()
    home = makeFleetHome([a])
    home.setHosts({laptop: {budget: '30s', target: `127.0.0.1:${a.port}`}})
    seedSession(a.remoteHome, '10000000-0000-4000-8000-000000000000', 'before the stream')
    expect((await runCast(['sessions', '--json'], {env: remoteEnv(), timeout: 120_000})).code).toBe(0)
  }, 120_000)
  afterEach(() => killStarted())
  afterAll(async () => {
    await a?.stop()
    home?.cleanup()
  })

  it('resumes after the ssh child is killed: every transition once', async () => {
    const l0 = json(await runCast(['daemon', 'status', '--json'], {env: remoteEnv()})).last_seq as number
    const w = startCast(['sessions', '-w', '--json', '--fleet'], home.fleetEnv)
    const seen: {seq: number; session_id: string; host: string; event: string}[] = []
    const until = async (pred: () => boolean): Promise<void> => {
      const deadline = Date.now() + 60_000
      while (!pred()) {
        if (Date.now() > deadline) throw new Error(`timed out; lines: ${JSON.stringify(seen)}`)
        const line = await w.nextLine(60_000)
        seen.push(JSON.parse(line))
      }
    }
    const ids = ['1', '2', '3', '4', '5', '6'].map((d) => `${d.repeat(8)}-0000-4000-8000-000000000000`)
    // Seeded before or after the host's stream is up, they arrive: the stream starts after l0.
    for (const id of ids.slice(0, 3)) seedSession(a.remoteHome, id, `session ${id[0]}`)
    await until(() => new Set(seen.map((s) => s.session_id)).size >= 3)
    const ssh = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(w.child.pid)], {encoding: 'utf8'})
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .filter(([, c]) => c === 'ssh')
    expect(ssh.length).toBeGreaterThan(0)
    for (const [pid] of ssh) process.kill(Number(pid), 'SIGKILL')
    for (const id of ids.slice(3)) seedSession(a.remoteHome, id, `session ${id[0]}`)
    await until(() => new Set(seen.map((s) => s.session_id)).size >= 6)
    const l1 = json(await runCast(['daemon', 'status', '--json'], {env: remoteEnv()})).last_seq as number
    await until(() => seen.some((s) => s.seq >= l1))
    await w.stop()
    expect(seen.every((s) => s.host === 'laptop' && s.session_id.startsWith('laptop:'))).toBe(true)
    const seqs = seen.map((s) => `${s.seq}:${s.event}:${s.session_id}`)
    expect(new Set(seqs).size).toBe(seqs.length)
    const transitions = [...new Set(seen.map((s) => s.seq))].sort((x, y) => x - y)
    expect(transitions).toEqual(Array.from({length: l1 - l0}, (_, i) => l0 + 1 + i))
  }, 240_000)
})
