/**
 * A local cast home whose config lists several loopback sshds (./sshd.ts) as hosts, and one
 * ssh_config (CAST_SSH_CONFIG) that trusts every one of them; plus hosts that are down (a closed
 * port) or hang (a TCP listener that never says the SSH banner).
 */
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'

import {claudeLines, claudeTranscriptPath, makeHome, writeFile, type TempHome} from '../helpers/cli.js'
import type {Sshd} from './sshd.js'

export function sshConfigFor(dir: string, sshds: readonly Sshd[]): string {
  const cfg = path.join(dir, 'ssh_config')
  const keys = sshds.map((s) => `  IdentityFile ${path.join(s.dir, 'client_ed25519')}`).join('\n')
  const known = sshds.map((s) => s.knownHosts).join(' ')
  fs.writeFileSync(
    cfg,
    `Host *\n  User root\n${keys}\n  IdentitiesOnly yes\n  UserKnownHostsFile ${known}\n  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n  LogLevel ERROR\n`,
  )
  return cfg
}

export interface FleetHome extends TempHome {
  readonly fleetEnv: Record<string, string>
  setHosts(hosts: Record<string, {target: string; budget?: string}>): void
}

export function makeFleetHome(sshds: readonly Sshd[]): FleetHome {
  const home = makeHome()
  const cfg = sshConfigFor(home.dir, sshds)
  return {
    ...home,
    fleetEnv: {...home.env, CAST_SSH_CONFIG: cfg},
    setHosts(hosts) {
      fs.mkdirSync(home.castHome, {recursive: true})
      fs.writeFileSync(path.join(home.castHome, 'config.json'), JSON.stringify({hosts}, null, 2))
    },
  }
}

/** A Claude Code session in HOME: settled (done) or asking a question (needs input). */
export function seedSession(home: string, id: string, prompt: string, question?: string): void {
  const cwd = path.join(home, 'src', id.slice(0, 8))
  writeFile(claudeTranscriptPath(home, cwd, id), claudeLines({at: new Date(Date.now() - 60_000), cwd, prompt, question, sessionId: id}))
}

/** A port that accepts TCP and then says nothing: ssh waits for a banner that never comes. */
export async function hangingPort(): Promise<{port: number; close(): Promise<void>}> {
  const sockets = new Set<net.Socket>()
  const srv = net.createServer((s) => {
    sockets.add(s)
    s.on('error', () => {})
  })
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
  return {
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy()
        srv.close(() => r())
      }),
    port: (srv.address() as net.AddressInfo).port,
  }
}
