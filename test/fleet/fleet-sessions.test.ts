/**
 * `cast sessions --fleet` over real loopback sshds: the hosts' own listings in the same sections,
 * each row naming its host and its id namespaced; a host that is down or hangs is one line and the
 * answer still comes; a host that stops answering shows its last listing marked stale; a host that
 * prints garbage, escapes or too much is one line, nothing of it raw.
 */
import fs from 'node:fs'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {json, runCast} from '../helpers/cli.js'
import {hangingPort, makeFleetHome, seedSession, type FleetHome} from './fleet-env.js'
import {SSHD_AVAILABLE, startSshd, type Sshd} from './sshd.js'

const ESC = '\u001B'

describe.skipIf(!SSHD_AVAILABLE)('cast sessions --fleet', () => {
  let a: Sshd
  let b: Sshd
  let garbage: Sshd
  let huge: Sshd
  let escapes: Sshd
  let hang: {port: number; close(): Promise<void>}
  let home: FleetHome
  beforeAll(async () => {
    const dir = fs.mkdtempSync('/tmp/cast-fleet-listing-')
    const listing = path.join(dir, 'listing.json')
    const id = 'abcdefghijklmnopqrstuvwxyz'
    fs.writeFileSync(
      listing,
      JSON.stringify({
        counts: {},
        sessions: [
          {
            agent: 'claude-code',
            bucket: 'needs_input',
            children: [],
            id,
            labels: [],
            messages: 1,
            owners: [],
            reason: 'question',
            short_id: id.slice(0, 7),
            state: 'needs_input',
            title: `${ESC}]0;pwned\u0007${ESC}[2J\u202Eevil`,
          },
        ],
      }),
    )
    ;[a, b, garbage, huge, escapes, hang] = await Promise.all([
      startSshd(),
      startSshd(),
      startSshd({wrapper: `printf '\\033]0;pwned\\007\\033[2Jnot json at all'`}),
      startSshd({wrapper: 'head -c 20000000 /dev/zero | tr "\\0" "x"'}),
      startSshd({wrapper: `cat ${listing}`}),
      hangingPort(),
    ])
    seedSession(a.remoteHome, '11111111-1111-4111-8111-111111111111', 'fix the laptop build', 'Which branch?')
    seedSession(b.remoteHome, '22222222-2222-4222-8222-222222222222', 'deploy the workstation')
    home = makeFleetHome([a, b, garbage, huge, escapes])
    seedSession(home.home, '33333333-3333-4333-8333-333333333333', 'a local session')
  }, 120_000)
  afterAll(async () => {
    await Promise.all([a, b, garbage, huge, escapes].map((s) => s?.stop()))
    await hang?.close()
    home?.cleanup()
  })

  it('lists every host in the same sections, each row marked with its host and a namespaced id; 2 of 4 hosts down', async () => {
    home.setHosts({
      laptop: {budget: '45s', target: `127.0.0.1:${a.port}`},
      work: {budget: '45s', target: `127.0.0.1:${b.port}`},
      gone: {target: '127.0.0.1:1'},
      stuck: {budget: '2s', target: `127.0.0.1:${hang.port}`},
    })
    const r = await runCast(['sessions', '--fleet', '--json'], {env: home.fleetEnv, timeout: 120_000})
    expect(r.code).toBe(0)
    const j = json(r)
    const byHost = (h: string | null) => j.sessions.filter((s: {host: string | null}) => s.host === h)
    expect(byHost(null)).toHaveLength(1)
    expect(byHost('laptop')).toHaveLength(1)
    expect(byHost('work')).toHaveLength(1)
    const laptop = byHost('laptop')[0]
    expect(laptop.id).toMatch(/^laptop:[a-z2-7]{26}$/)
    expect(laptop.short_id).toMatch(/^laptop:[a-z2-7]{7}$/)
    expect(laptop.state).toBe('needs_input')
    // The same sections, local rows first, then the hosts in the order added.
    expect(j.sessions.findIndex((s: {host: string}) => s.host === 'laptop')).toBeLessThan(
      j.sessions.findIndex((s: {host: string}) => s.host === 'work'),
    )
    const hosts = Object.fromEntries(j.hosts.map((h: {name: string}) => [h.name, h]))
    expect(hosts.laptop).toMatchObject({error: null, status: 'ok'})
    expect(hosts.gone).toMatchObject({stale: false, status: 'unreachable'})
    expect(hosts.gone.error).toMatch(/^ssh: connect to host 127\.0\.0\.1 port 1: Connection refused$/)
    expect(hosts.stuck).toMatchObject({error: 'no answer within 2000 ms', status: 'unreachable'})

    const human = await runCast(['sessions', '--fleet'], {env: home.fleetEnv, timeout: 120_000})
    expect(human.code).toBe(0)
    expect(human.stdout).toMatch(/^cast sessions · fleet \(this machine \+ 2\/4 hosts\)/)
    expect(human.stdout).toMatch(/\ngone: unreachable since \d\d:\d\d — ssh: connect to host 127\.0\.0\.1 port 1: Connection refused\n/)
    expect(human.stdout).toMatch(/\nstuck: unreachable since \d\d:\d\d — no answer within 2000 ms\n/)
    expect(human.stdout).toMatch(/laptop:[a-z2-7]{7} {2}fix the laptop build\n.*on laptop/)
    expect(human.stdout).toMatch(/work:[a-z2-7]{7} {2}deploy the workstation\n.*on work/)
    expect(human.stdout).toMatch(
      /\nQUESTIONS \(1\)\n\n○ needs input:question {2}laptop:[\s\S]*\nNEEDS INPUT \(2\)\n\n○ needs input:settled {2}[a-z2-7]{7} {2}a local session\n[\s\S]*work:/,
    )
  }, 240_000)

  it('shows a host that stopped answering with its last listing, marked stale', async () => {
    home.setHosts({laptop: {budget: '45s', target: `127.0.0.1:${a.port}`}})
    expect((await runCast(['sessions', '--fleet', '--json'], {env: home.fleetEnv, timeout: 120_000})).code).toBe(0)
    home.setHosts({laptop: {budget: '45s', target: '127.0.0.1:1'}})
    const r = await runCast(['sessions', '--fleet', '--json'], {env: home.fleetEnv, timeout: 120_000})
    const j = json(r)
    expect(j.hosts[0]).toMatchObject({name: 'laptop', stale: true, status: 'unreachable', sessions: 1})
    expect(j.sessions.find((s: {host: string}) => s.host === 'laptop')).toMatchObject({stale: true})
    const human = await runCast(['sessions', '--fleet'], {env: home.fleetEnv, timeout: 120_000})
    expect(human.stdout).toMatch(
      /\nlaptop: unreachable since \d\d:\d\d — ssh: .*Connection refused \(its listing from \d\d:\d\d, stale\)\n/,
    )
    expect(human.stdout).toMatch(/on laptop \(stale\)/)
  }, 240_000)

  it('turns garbage, a flood and escape-laden text into one line or visible characters', async () => {
    home.setHosts({
      esc: {budget: '45s', target: `127.0.0.1:${escapes.port}`},
      junk: {budget: '45s', target: `127.0.0.1:${garbage.port}`},
      flood: {budget: '45s', target: `127.0.0.1:${huge.port}`},
    })
    const r = await runCast(['sessions', '--fleet'], {env: home.fleetEnv, timeout: 120_000})
    expect(r.code).toBe(0)
    expect(r.stdout).not.toContain(ESC)
    expect(r.stdout).not.toContain('\u0007')
    expect(r.stdout).not.toContain('\u202E')
    expect(r.stdout).toMatch(/\njunk: garbage since \d\d:\d\d — answered garbage \(\d+ bytes that are not JSON\)\n/)
    expect(r.stdout).toMatch(
      /\nflood: garbage since \d\d:\d\d — answered more than the fleet reads from one host \(cut off\): not a listing\n/,
    )
    expect(r.stdout).toContain('esc:abcdefg  ^[]0;pwned^G^[[2J<U+202E>evil')
    expect(r.stdout.length).toBeLessThan(100_000)
    const j = json(await runCast(['sessions', '--fleet', '--json'], {env: home.fleetEnv, timeout: 120_000}))
    expect(j.sessions.find((s: {host: string}) => s.host === 'esc').title).toBe('^[]0;pwned^G^[[2J<U+202E>evil')
  }, 240_000)
})
