/**
 * A real OpenSSH server on loopback for the fleet tests: Debian's /usr/sbin/sshd in the foreground
 * (-D -e) on a free port, with its own host key, a client key, authorized_keys, known_hosts and an
 * ssh_config, all in a temporary folder. The session gets PATH (a folder holding a `cast` wrapper
 * script) and CAST_HOME through sshd_config's SetEnv, so the remote command is the client's own argv.
 */
import {execFileSync, spawn, type ChildProcess} from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'

import {BIN} from '../helpers/cli.js'

export interface Sshd {
  readonly port: number
  readonly dir: string
  /** The client's ssh_config: key, known_hosts, User root (pass as CAST_SSH_CONFIG or -F). */
  readonly sshConfig: string
  readonly knownHosts: string
  /** The remote CAST_HOME the wrapper runs cast over. */
  readonly remoteCastHome: string
  /** The remote HOME (agents' files go under it). */
  readonly remoteHome: string
  /** Replace the host key in known_hosts with another key (a host whose key changed). */
  forgeHostKey(): void
  stop(): Promise<void>
}

export const SSHD_AVAILABLE = fs.existsSync('/usr/sbin/sshd') && fs.existsSync('/usr/bin/ssh') && process.getuid?.() === 0

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const {port} = srv.address() as net.AddressInfo
      srv.close(() => resolve(port))
    })
  })
}

function keygen(file: string): void {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'cast-test', '-f', file])
}

/** Waits (polling, generous bound) until the port accepts connections. */
async function waitListening(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`sshd exited ${child.exitCode}: ${stderr()}`)
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1')
      s.once('connect', () => {
        s.destroy()
        resolve(true)
      })
      s.once('error', () => resolve(false))
    })
    if (ok) return
    await new Promise((r) => setTimeout(r, 100))
  }

  throw new Error(`sshd did not listen on ${port}: ${stderr()}`)
}

/**
 * Starts sshd. `wrapper` is the body of the remote `cast` script after `#!/bin/sh` (default: exec
 * this worktree's built cast with the arguments unchanged).
 */
export async function startSshd(options: {wrapper?: string; remoteCastHome?: string} = {}): Promise<Sshd> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-sshd-'))
  const hostKey = path.join(dir, 'host_ed25519')
  const clientKey = path.join(dir, 'client_ed25519')
  keygen(hostKey)
  keygen(clientKey)
  const authorized = path.join(dir, 'authorized_keys')
  fs.writeFileSync(authorized, fs.readFileSync(`${clientKey}.pub`), {mode: 0o600})
  const binDir = path.join(dir, 'bin')
  fs.mkdirSync(binDir)
  const remoteHome = path.join(dir, 'remote-home')
  const remoteCastHome = options.remoteCastHome ?? path.join(dir, 'remote-cast')
  fs.mkdirSync(remoteHome)
  fs.mkdirSync(remoteCastHome, {recursive: true})
  const wrapper = options.wrapper ?? `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"`
  fs.writeFileSync(path.join(binDir, 'cast'), `#!/bin/sh\n${wrapper}\n`, {mode: 0o755})
  const port = await freePort()
  const config = path.join(dir, 'sshd_config')
  fs.writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${authorized}`,
      'UsePAM no',
      'StrictModes no',
      'PermitRootLogin yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'PermitUserEnvironment yes',
      `SetEnv PATH=${binDir}:/usr/bin:/bin CAST_HOME=${remoteCastHome} HOME=${remoteHome} CAST_USER=remote@example.com NO_COLOR=1 XDG_CONFIG_HOME=${remoteHome}/.config XDG_DATA_HOME=${remoteHome}/.local/share TMUX_TMPDIR=${remoteHome}/tmux`,
      'LogLevel ERROR',
      '',
    ].join('\n'),
  )
  const knownHosts = path.join(dir, 'known_hosts')
  const hostLine = (pub: string) => `[127.0.0.1]:${port} ${fs.readFileSync(pub, 'utf8').trim().split(' ').slice(0, 2).join(' ')}\n`
  fs.writeFileSync(knownHosts, hostLine(`${hostKey}.pub`))
  const sshConfig = path.join(dir, 'ssh_config')
  fs.writeFileSync(
    sshConfig,
    [
      'Host *',
      '  User root',
      `  IdentityFile ${clientKey}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${knownHosts}`,
      '  GlobalKnownHostsFile /dev/null',
      '  StrictHostKeyChecking yes',
      '  LogLevel ERROR',
      '',
    ].join('\n'),
  )
  // sshd's privilege separation needs /run/sshd (Debian's unit creates it; a container may not have it).
  fs.mkdirSync('/run/sshd', {mode: 0o755, recursive: true})
  let err = ''
  const child = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', config], {stdio: ['ignore', 'ignore', 'pipe']})
  child.stderr?.on('data', (b: Buffer) => (err += b.toString()))
  await waitListening(port, child, () => err)
  return {
    dir,
    forgeHostKey() {
      const other = path.join(dir, 'other_ed25519')
      if (!fs.existsSync(other)) keygen(other)
      fs.writeFileSync(knownHosts, hostLine(`${other}.pub`))
    },
    knownHosts,
    port,
    remoteCastHome,
    remoteHome,
    sshConfig,
    async stop() {
      if (child.exitCode === null) {
        const gone = new Promise((r) => child.once('exit', r))
        child.kill('SIGTERM')
        await gone
      }

      fs.rmSync(dir, {force: true, recursive: true})
    },
  }
}
