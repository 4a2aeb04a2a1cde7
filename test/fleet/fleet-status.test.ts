/**
 * `cast status --fleet` over real loopback sshds: each host's own counts summed with this
 * machine's, the hosts that are down or hang named in the one line, and `"fleet": {"default": true}`
 * in the config making it the default (`--no-fleet`: this machine only).
 */
import fs from 'node:fs'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {json, runCast} from '../helpers/cli.js'
import {hangingPort, makeFleetHome, seedSession, type FleetHome} from './fleet-env.js'
import {SSHD_AVAILABLE, startSshd, type Sshd} from './sshd.js'

interface StatusOut {
  need: number
  done: number
  line: string
  synced: boolean
  hosts?: {name: string; status: string; counts: {need: number} | null}[]
}

describe.skipIf(!SSHD_AVAILABLE)('cast status --fleet', () => {
  let a: Sshd
  let b: Sshd
  let hang: {port: number; close(): Promise<void>}
  let home: FleetHome
  const hosts = (): Record<string, {target: string; budget?: string}> => ({
    laptop: {budget: '45s', target: `127.0.0.1:${a.port}`},
    work: {budget: '45s', target: `127.0.0.1:${b.port}`},
    gone: {target: '127.0.0.1:1'},
    stuck: {budget: '2s', target: `127.0.0.1:${hang.port}`},
  })
  const writeConfig = (extra: Record<string, unknown>): void =>
    fs.writeFileSync(path.join(home.castHome, 'config.json'), JSON.stringify({hosts: hosts(), ...extra}, null, 2))

  beforeAll(async () => {
    ;[a, b, hang] = await Promise.all([startSshd(), startSshd(), hangingPort()])
    seedSession(a.remoteHome, '11111111-1111-4111-8111-111111111111', 'fix the laptop build', 'Which branch?')
    seedSession(a.remoteHome, '33333333-3333-4333-8333-333333333333', 'and the docs', 'Which format?')
    seedSession(b.remoteHome, '22222222-2222-4222-8222-222222222222', 'deploy the workstation', 'Now?')
    // Each host's store synced once, as its own cast sessions (or daemon) does there.
    for (const s of [a, b]) {
      const r = await runCast(['sessions', '--json'], {
        env: {CAST_HOME: s.remoteCastHome, CAST_USER: 'remote@example.com', HOME: s.remoteHome, NO_COLOR: '1', PATH: process.env.PATH!},
        timeout: 120_000,
      })
      expect(r.code).toBe(0)
    }

    home = makeFleetHome([a, b])
    home.setHosts(hosts())
    // This machine's store exists (synced, nothing in it).
    expect((await runCast(['sessions', '--json'], {env: home.fleetEnv, timeout: 120_000})).code).toBe(0)
  }, 180_000)
  afterAll(async () => {
    await Promise.all([a, b].map((s) => s?.stop()))
    await hang?.close()
    home?.cleanup()
  })

  it('sums every host that answers and names the two that do not in the one line', async () => {
    const local: StatusOut = json(await runCast(['status', '--json'], {env: home.fleetEnv, timeout: 120_000}))
    expect(local.need).toBe(0)
    const r = await runCast(['status', '--fleet', '--json'], {env: home.fleetEnv, timeout: 120_000})
    expect(r.code).toBe(0)
    const s: StatusOut = json(r)
    expect(s.need).toBe(3)
    expect(s.hosts!.map((h) => `${h.name}:${h.status}:${h.counts?.need ?? '-'}`)).toEqual([
      'laptop:ok:2',
      'work:ok:1',
      'gone:unreachable:-',
      'stuck:unreachable:-',
    ])
    expect(s.line).toMatch(/^3 need you.* · gone, stuck unreachable$/)
    const human = await runCast(['status', '--fleet'], {env: home.fleetEnv, timeout: 120_000})
    expect(human.stdout.split('\n').filter((l) => l !== '')).toEqual([s.line])
  }, 240_000)

  it('"fleet": {"default": true} makes it the default; --no-fleet is this machine only', async () => {
    writeConfig({fleet: {default: true}})
    try {
      const plain = await runCast(['status'], {env: home.fleetEnv, timeout: 120_000})
      expect(plain.code).toBe(0)
      expect(plain.stdout).toMatch(/^3 need you.* · gone, stuck unreachable\n$/)
      const here = await runCast(['status', '--no-fleet'], {env: home.fleetEnv, timeout: 120_000})
      expect(here.stdout).not.toMatch(/need you|unreachable/)
    } finally {
      home.setHosts(hosts())
    }
  }, 240_000)
})
