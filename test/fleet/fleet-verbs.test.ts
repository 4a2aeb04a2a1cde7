/**
 * Verbs on a fleet session (`cast pin laptop:ID`) over real loopback sshds: they run on that host,
 * through its cast, with every argument as data; the host's line and exit code come back; an id of
 * one host used against another is that host's to refuse; a changed host key is refused; a remote
 * cast that hangs times out; two of five hosts down change nothing for the others.
 */
import fs from 'node:fs'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BIN, json, runCast} from '../helpers/cli.js'
import {hangingPort, makeFleetHome, seedSession, type FleetHome} from './fleet-env.js'
import {SSHD_AVAILABLE, startSshd, type Sshd} from './sshd.js'

interface Row {
  id: string
  short_id: string
  host: string | null
  pinned: boolean
  labels: string[]
  state: string
  title: string | null
}

describe.skipIf(!SSHD_AVAILABLE)('verbs on a fleet session', () => {
  let a: Sshd
  let b: Sshd
  let forged: Sshd
  let slow: Sshd
  let hang: {port: number; close(): Promise<void>}
  let home: FleetHome
  let trap: string
  const listing = async (): Promise<{hosts: {name: string; status: string}[]; sessions: Row[]}> =>
    json(await runCast(['sessions', '--fleet', '--json', '--all'], {env: home.fleetEnv, timeout: 120_000}))
  const remoteListing = async (s: Sshd): Promise<Row[]> =>
    json(
      await runCast(['sessions', '--json', '--all'], {
        env: {CAST_HOME: s.remoteCastHome, CAST_USER: 'remote@example.com', HOME: s.remoteHome, NO_COLOR: '1', PATH: process.env.PATH!},
        timeout: 120_000,
      }),
    ).sessions

  beforeAll(async () => {
    trap = fs.mkdtempSync('/tmp/cast-fleet-trap-')
    ;[a, b, forged, slow, hang] = await Promise.all([
      startSshd(),
      startSshd(),
      startSshd(),
      // Answers --version, hangs on every verb.
      startSshd({
        wrapper: `case "$1" in --version|sessions) exec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@";; *) sleep 120;; esac`,
      }),
      hangingPort(),
    ])
    seedSession(a.remoteHome, '11111111-1111-4111-8111-111111111111', 'fix the laptop build', 'Which branch?')
    seedSession(b.remoteHome, '22222222-2222-4222-8222-222222222222', 'deploy the workstation')
    seedSession(slow.remoteHome, '44444444-4444-4444-8444-444444444444', 'a slow one')
    home = makeFleetHome([a, b, forged, slow])
    home.setHosts({
      laptop: {budget: '45s', target: `127.0.0.1:${a.port}`},
      work: {budget: '45s', target: `127.0.0.1:${b.port}`},
      slow: {budget: '45s', target: `127.0.0.1:${slow.port}`},
      gone: {target: '127.0.0.1:1'},
      stuck: {budget: '2s', target: `127.0.0.1:${hang.port}`},
    })
  }, 120_000)
  afterAll(async () => {
    await Promise.all([a, b, forged, slow].map((s) => s?.stop()))
    await hang?.close()
    home?.cleanup()
    fs.rmSync(trap, {force: true, recursive: true})
  })

  it('runs pin on the host it names (stored there, not here), with 2 of 5 hosts down', async () => {
    const before = await listing()
    expect(before.hosts.map((h) => `${h.name}:${h.status}`)).toEqual([
      'laptop:ok',
      'work:ok',
      'slow:ok',
      'gone:unreachable',
      'stuck:unreachable',
    ])
    const row = before.sessions.find((s) => s.host === 'laptop')!
    expect(row.pinned).toBe(false)
    const r = await runCast(['pin', row.short_id], {env: home.fleetEnv, timeout: 120_000})
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(new RegExp(`^${row.short_id.slice('laptop:'.length)}  fix the laptop build  pinned → questions`))
    const there = (await remoteListing(a)).find((s) => `laptop:${s.id}` === row.id)!
    expect(there.pinned).toBe(true)
    const after = await listing()
    expect(after.sessions.find((s) => s.id === row.id)!.pinned).toBe(true)
    // This machine's store holds no copy of it.
    const local = json(await runCast(['sessions', '--json', '--all'], {env: home.fleetEnv})).sessions
    expect(local.map((s: Row) => s.id)).not.toContain(row.id.slice('laptop:'.length))
    // --json: the host's own JSON, as it printed it.
    const j = await runCast(['unpin', row.id, '--json'], {env: home.fleetEnv, timeout: 120_000})
    expect(j.code).toBe(0)
    expect(JSON.parse(j.stdout)).toMatchObject({verb: 'unpin'})
  }, 240_000)

  it("refuses one host's session id used against another host (that host does not have it)", async () => {
    const row = (await listing()).sessions.find((s) => s.host === 'laptop')!
    const bare = row.id.slice('laptop:'.length)
    const r = await runCast(['pin', `work:${bare}`], {env: home.fleetEnv, timeout: 120_000})
    expect(r.code).toBe(3)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/No session matches/)
    expect((await remoteListing(a)).find((s) => s.id === bare)!.pinned).toBe(false)
    const mixed = await runCast(['pin', row.id, 'work:abcd'], {env: home.fleetEnv})
    expect(mixed.code).toBe(2)
    expect(mixed.stderr).toMatch(/Sessions of different machines in one call/)
  }, 240_000)

  it('passes ; $(…), newlines and leading dashes as data: nothing runs on the host', async () => {
    const row = (await listing()).sessions.find((s) => s.host === 'laptop')!
    const hostile = `x; touch ${trap}/semi $(touch ${trap}/subst)\nb; touch ${trap}/nl --help -rf`
    const r = await runCast(['rename', row.id, '--', hostile], {env: home.fleetEnv, timeout: 120_000})
    expect(r.code).toBe(0)
    const there = (await remoteListing(a)).find((s) => `laptop:${s.id}` === row.id)!
    // A title is one line (as cast rename stores it here too); every byte else arrived as given.
    expect(there.title).toBe(hostile.replace('\n', ' '))
    const dash = await runCast(['rename', row.id, '--', '--json'], {env: home.fleetEnv, timeout: 120_000})
    expect(dash.code).toBe(0)
    expect((await remoteListing(a)).find((s) => `laptop:${s.id}` === row.id)!.title).toBe('--json')
    // A refusal: --if reaches the host as a flag, the message as data; the host's exit 5 and line come back.
    const send = await runCast(['send', row.id, '--if', 'working', '--', `--yes $(touch ${trap}/send); touch ${trap}/send2`], {
      env: home.fleetEnv,
      timeout: 120_000,
    })
    expect(send.code).toBe(5)
    expect(send.stderr).toMatch(/working/)
    expect(fs.readdirSync(trap)).toEqual([])
  }, 240_000)

  it('refuses a host whose key changed, as ssh does (exit 5, one line)', async () => {
    forged.forgeHostKey()
    home.setHosts({box: {budget: '45s', target: `127.0.0.1:${forged.port}`}})
    const r = await runCast(['pin', 'box:abcdefg'], {env: home.fleetEnv, timeout: 120_000})
    expect(r.code).toBe(5)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe('cast: box: unreachable — ssh: the host key changed (ssh refuses it: check known_hosts)\n')
  }, 240_000)

  it('times out a remote cast that hangs (exit 124, one line)', async () => {
    home.setHosts({slow: {budget: '45s', target: `127.0.0.1:${slow.port}`}})
    const row = (await listing()).sessions.find((s) => s.host === 'slow')!
    const r = await runCast(['approve', row.id, '--timeout', '3s'], {env: home.fleetEnv, timeout: 120_000})
    expect(r.code).toBe(124)
    expect(r.stderr).toMatch(/^cast: slow: no answer within 3000 ms \(the verb may or may not have run there/)
  }, 240_000)

  it('keeps a label that starts with the host name as text', async () => {
    home.setHosts({laptop: {budget: '45s', target: `127.0.0.1:${a.port}`}})
    const row = (await listing()).sessions.find((s) => s.host === 'laptop')!
    expect((await runCast(['label', 'laptop:later', row.id], {env: home.fleetEnv, timeout: 120_000})).code).toBe(0)
    expect((await remoteListing(a)).find((s) => `laptop:${s.id}` === row.id)!.labels).toContain('laptop:later')
  }, 240_000)
})
