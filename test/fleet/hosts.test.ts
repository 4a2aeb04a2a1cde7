/**
 * `cast hosts add|list|remove|test` against a real sshd on loopback (./sshd.ts): the host is
 * recorded only when its cast answers; a missing or old cast is one line with the install command.
 */
import fs from 'node:fs'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {json, makeHome, runCast, type TempHome} from '../helpers/cli.js'
import {SSHD_AVAILABLE, startSshd, type Sshd} from './sshd.js'

describe.skipIf(!SSHD_AVAILABLE)('cast hosts over a real sshd', () => {
  let sshd: Sshd
  let missing: Sshd
  let old: Sshd
  let home: TempHome
  let env: Record<string, string>
  beforeAll(async () => {
    ;[sshd, missing, old] = await Promise.all([
      startSshd(),
      startSshd({wrapper: 'echo "sh: 1: cast: not found" >&2; exit 127'}),
      startSshd({wrapper: 'echo "cast-inbox/0.0.3 linux-x64 node-v20.0.0"'}),
    ])
    home = makeHome()
    // One ssh config for the three: each sshd trusts its own client key, so list them all.
    const cfg = path.join(home.dir, 'ssh_config')
    const keys = [sshd, missing, old].map((s) => `  IdentityFile ${path.join(s.dir, 'client_ed25519')}`).join('\n')
    const known = [sshd, missing, old].map((s) => s.knownHosts).join(' ')
    fs.writeFileSync(
      cfg,
      `Host *\n  User root\n${keys}\n  IdentitiesOnly yes\n  UserKnownHostsFile ${known}\n  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n  LogLevel ERROR\n`,
    )
    env = {...home.env, CAST_SSH_CONFIG: cfg}
  }, 90_000)
  afterAll(async () => {
    await Promise.all([sshd?.stop(), missing?.stop(), old?.stop()])
    home?.cleanup()
  })

  it('adds a host whose cast answers, lists it, tests it and removes it', async () => {
    const add = await runCast(['hosts', 'add', 'box', `127.0.0.1:${sshd.port}`], {env, timeout: 60_000})
    expect(add.stderr).toBe('')
    expect(add.stdout).toMatch(/^Added box: 127\.0\.0\.1:\d+, cast \d+\.\d+\.\d+\./)
    expect(add.code).toBe(0)
    const config = JSON.parse(fs.readFileSync(path.join(home.castHome, 'config.json'), 'utf8'))
    expect(config.hosts).toEqual({box: {target: `127.0.0.1:${sshd.port}`}})

    const list = json(await runCast(['hosts', 'list', '--json'], {env}))
    expect(list.hosts).toEqual([{budget_ms: 1500, name: 'box', target: `127.0.0.1:${sshd.port}`}])

    const test = await runCast(['hosts', 'test'], {env, timeout: 60_000})
    expect(test.code).toBe(0)
    expect(test.stdout).toMatch(/^box: ok — cast \d+\.\d+\.\d+, \d+ ms\n$/)

    const rm = await runCast(['hosts', 'remove', 'box'], {env})
    expect(rm.stdout).toBe('Removed box.\n')
    expect(JSON.parse(fs.readFileSync(path.join(home.castHome, 'config.json'), 'utf8')).hosts).toBeUndefined()
    const again = await runCast(['hosts', 'remove', 'box'], {env})
    expect(again.code).toBe(3)
    expect(again.stderr).toMatch(/No host named "box"/)
  }, 120_000)

  it('refuses a host without cast, or with an old one: one line with the install command, nothing recorded', async () => {
    const none = await runCast(['hosts', 'add', 'bare', `127.0.0.1:${missing.port}`], {env, timeout: 60_000})
    expect(none.code).toBe(5)
    expect(none.stderr.trim().split('\n')).toHaveLength(1)
    expect(none.stderr).toMatch(/bare: cast is not installed there .*npm install -g .*Not added\./)
    const older = await runCast(['hosts', 'add', 'old', `127.0.0.1:${old.port}`], {env, timeout: 60_000})
    expect(older.code).toBe(5)
    expect(older.stderr).toMatch(/old: cast 0\.0\.3 there is older than \d+\.\d+\.\d+: upgrade it with npm install -g/)
    expect(
      fs.existsSync(path.join(home.castHome, 'config.json'))
        ? JSON.parse(fs.readFileSync(path.join(home.castHome, 'config.json'), 'utf8')).hosts
        : undefined,
    ).toBeUndefined()
  }, 120_000)

  it('refuses a destination that ssh would read as an option, and an unreachable host', async () => {
    const dash = await runCast(['hosts', 'add', 'evil', '--', '-oProxyCommand=touch /tmp/pwned'], {env})
    expect(dash.code).toBe(2)
    expect(dash.stderr).toMatch(/not a host name|expected \[user@\]host/)
    const down = await runCast(['hosts', 'add', 'down', '127.0.0.1:1'], {env, timeout: 60_000})
    expect(down.code).toBe(1)
    expect(down.stderr).toMatch(/^cast: down: unreachable — ssh: connect to host 127\.0\.0\.1 port 1: Connection refused\. Not added\.\n$/)
    const forced = await runCast(['hosts', 'add', 'down', '127.0.0.1:1', '--no-check'], {env})
    expect(forced.code).toBe(0)
    const t = await runCast(['hosts', 'test', '--json'], {env, timeout: 60_000})
    expect(t.code).toBe(1)
    expect(json(t).hosts).toMatchObject([{name: 'down', ok: false, problem: 'unreachable'}])
  }, 120_000)
})
