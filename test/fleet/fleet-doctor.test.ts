/** `cast doctor` asks each host of `cast hosts` over a real loopback sshd: reachable, version, its daemon, its clock. */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {json, runCast} from '../helpers/cli.js'
import {makeFleetHome, type FleetHome} from './fleet-env.js'
import {SSHD_AVAILABLE, startSshd, type Sshd} from './sshd.js'

describe.skipIf(!SSHD_AVAILABLE)('cast doctor with hosts', () => {
  let a: Sshd
  let home: FleetHome
  beforeAll(async () => {
    a = await startSshd()
    home = makeFleetHome([a])
    home.setHosts({gone: {target: '127.0.0.1:1'}, laptop: {target: `127.0.0.1:${a.port}`}})
  }, 90_000)
  afterAll(async () => {
    await a?.stop()
    home?.cleanup()
  })

  it('reports each host: version, no daemon there, clock skew; an unreachable one in one line', async () => {
    const r = await runCast(['doctor', '--json'], {env: home.fleetEnv, timeout: 120_000})
    const hosts = json(r).hosts
    expect(hosts).toHaveLength(2)
    const [gone, laptop] = [hosts.find((h: {name: string}) => h.name === 'gone'), hosts.find((h: {name: string}) => h.name === 'laptop')]
    expect(gone).toMatchObject({reachable: false, version: null})
    expect(gone.problem).toMatch(/^gone: unreachable — ssh: connect to host 127\.0\.0\.1 port 1: Connection refused$/)
    expect(laptop).toMatchObject({daemon_running: false, reachable: true})
    expect(laptop.version).toMatch(/^\d+\.\d+\.\d+$/)
    // The same machine: its clock is this one's (within the round trip).
    expect(Math.abs(laptop.clock_skew_ms)).toBeLessThan(5000)
    expect(laptop.problem).toMatch(/^laptop: its daemon is not running there/)
    const human = await runCast(['doctor'], {env: home.fleetEnv, timeout: 120_000})
    expect(human.stdout).toMatch(/\nHosts \(2\):\n/)
    expect(human.stdout).toMatch(
      /\n {2}! laptop \(127\.0\.0\.1:\d+\): cast \d+\.\d+\.\d+, no daemon, clock [+-]\d+ ms — its daemon is not running there/,
    )
    expect(human.stdout).toMatch(/\n {2}✗ gone: unreachable — ssh: connect to host 127\.0\.0\.1 port 1: Connection refused/)
  }, 240_000)
})
