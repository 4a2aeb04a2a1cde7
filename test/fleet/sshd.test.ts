import {execFile} from 'node:child_process'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {SSHD_AVAILABLE, startSshd, type Sshd} from './sshd.js'
import {parseHostSpec, sshArgv} from '../../src/lib/fleet/host-spec.js'
import {remoteCastCommand} from '../../src/lib/fleet/remote-argv.js'

function ssh(argv: string[]): Promise<{code: number; stdout: string; stderr: string}> {
  return new Promise((resolve) => {
    execFile('ssh', argv, {timeout: 60_000}, (error, stdout, stderr) => {
      resolve({code: error ? Number((error as {code?: number}).code ?? 1) : 0, stderr, stdout})
    })
  })
}

describe.skipIf(!SSHD_AVAILABLE)('the loopback sshd', () => {
  let sshd: Sshd
  beforeAll(async () => {
    sshd = await startSshd()
  }, 60_000)
  afterAll(async () => sshd?.stop())

  it('runs the remote cast wrapper with the argv as given, over its own CAST_HOME', async () => {
    const spec = parseHostSpec('box', `root@127.0.0.1:${sshd.port}`)
    const r = await ssh([...sshArgv(spec, 20, ['-F', sshd.sshConfig]), 'cast', '--version'])
    expect(r.stderr).toBe('')
    expect(r.stdout).toMatch(/^cast-inbox\/\d+\.\d+\.\d+/)
    const env = await ssh([...sshArgv(spec, 20, ['-F', sshd.sshConfig]), 'printenv CAST_HOME'])
    expect(env.stdout.trim()).toBe(sshd.remoteCastHome)
    expect(remoteCastCommand('sessions', [])).toContain("'cast'")
  }, 90_000)

  it('refuses a host whose key changed, as ssh does', async () => {
    sshd.forgeHostKey()
    const spec = parseHostSpec('box', `root@127.0.0.1:${sshd.port}`)
    const r = await ssh([...sshArgv(spec, 20, ['-F', sshd.sshConfig]), 'cast', '--version'])
    expect(r.code).toBe(255)
    expect(r.stdout).toBe('')
  }, 90_000)
})
