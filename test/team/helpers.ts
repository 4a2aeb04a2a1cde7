/**
 * Simulated machines of one team: each its own HOME, CAST_HOME, CAST_DEVICE, identity and
 * PostgreSQL role, its cast daemon publishing to the team store, optionally through a TCP proxy
 * the test can cut (a partition of that machine only, the server and the others untouched).
 */
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'

import {
  claudeLines,
  claudeTranscriptPath,
  json,
  makeHome,
  runCast,
  startCast,
  type TempHome,
  waitForWatcher,
  writeFile,
} from '../helpers/cli.js'
import {writeFakeConfig} from '../fakes/agents.js'
import {machineKey, trustKey} from '../../src/lib/team/keys.js'
import type {Cluster} from './pg.js'

export interface Machine {
  readonly name: string
  readonly who: string
  readonly h: TempHome
  readonly env: Record<string, string>
  readonly project: string
  daemon: ReturnType<typeof startCast> | null
  cast(args: readonly string[], extra?: Record<string, string>): ReturnType<typeof runCast>
  startDaemon(extra?: Record<string, string>): Promise<void>
  stopDaemon(): Promise<void>
  /** A Claude Code session in this machine's HOME (a question open unless settled), its lines stamped `at` (this machine's clock; default now). */
  addSession(sessionId: string, o?: {question?: string; settled?: boolean; prompt?: string; at?: number}): void
}

/** A TCP proxy to the server: cut() drops every connection and refuses new ones until heal(). */
export interface Link {
  readonly port: number
  cut(): void
  heal(): void
  close(): Promise<void>
}

export async function link(target: number): Promise<Link> {
  let open = true
  const socks = new Set<net.Socket>()
  const server = net.createServer((s) => {
    if (!open) return s.destroy()
    const up = net.connect(target, '127.0.0.1')
    socks.add(s)
    socks.add(up)
    s.pipe(up).pipe(s)
    const done = (): void => {
      s.destroy()
      up.destroy()
      socks.delete(s)
      socks.delete(up)
    }

    s.on('error', done).on('close', done)
    up.on('error', done).on('close', done)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  return {
    close: () =>
      new Promise<void>((r) => {
        for (const s of socks) s.destroy()
        server.close(() => r())
      }),
    cut() {
      open = false
      for (const s of socks) s.destroy()
      socks.clear()
    },
    heal() {
      open = true
    },
    port: (server.address() as net.AddressInfo).port,
  }
}

/** The machines made on each cluster, so a new one and the earlier ones trust each other's keys. */
const teams = new WeakMap<Cluster, Machine[]>()

/**
 * Each machine pins the other's key as `cast team trust` would (src/lib/team/keys.ts trustKey): what
 * a team does once by checking fingerprints, so teammates' actions are carried out.
 */
function trustEachOther(m: Machine, others: readonly Machine[]): void {
  for (const x of others) {
    trustKey(m.h.castHome, {device: x.name, pubkey: machineKey(x.h.castHome).pubkey, who: x.who}, Date.now())
    trustKey(x.h.castHome, {device: m.name, pubkey: machineKey(m.h.castHome).pubkey, who: m.who}, Date.now())
  }
}

/** A machine of the team; `trust: false` leaves the keys untrusted (test/team/signed.test.ts trusts through the CLI). */
export async function makeMachine(cluster: Cluster, name: string, who: string, o: {port?: number; trust?: boolean} = {}): Promise<Machine> {
  const h = makeHome(who)
  const password = `pw-${name}-${Math.random().toString(36).slice(2)}`
  const role = `m_${name.replace(/\W/g, '_')}`
  await cluster.addMachine(role, password)
  // The team's admin binds the role to its person (cast team admit, run here as the superuser).
  await cluster.sql('SELECT cast_team.admit_member($1, $2)', [role, who])
  const project = path.join(h.dir, 'proj')
  fs.mkdirSync(project, {recursive: true})
  writeFakeConfig(h.castHome)
  const url = `postgres://${role}:${password}@127.0.0.1:${o.port ?? cluster.port}/postgres`
  const env = {...h.env, CAST_DEVICE: name, FAKE_DELAY_MS: '50'}
  const m: Machine = {
    addSession(sessionId, s = {}) {
      const p = claudeTranscriptPath(h.home, project, sessionId)
      writeFile(
        p,
        claudeLines({
          at: new Date((s.at ?? Date.now()) - 5000),
          cwd: project,
          prompt: s.prompt ?? `task ${sessionId.slice(0, 4)}`,
          question: s.settled ? undefined : (s.question ?? 'Which database?'),
          sessionId,
          settled: s.settled,
        }),
      )
    },
    cast: (args, extra = {}) => runCast(args, {cwd: project, env: {...env, ...extra}, timeout: 90_000}),
    daemon: null,
    env,
    h,
    name,
    project,
    async startDaemon(extra = {}) {
      m.daemon = startCast(['daemon'], {...env, ...extra})
      await waitForWatcher(h.castHome, 60_000)
    },
    async stopDaemon() {
      await m.daemon?.stop()
      m.daemon = null
    },
    who,
  }
  const r = await m.cast(['team', 'join', url, '--name', 'platform', '--json'])
  if (r.code !== 0) throw new Error(`join ${name}: ${r.code} ${r.stdout} ${r.stderr}`)
  const others = teams.get(cluster) ?? []
  if (o.trust !== false) trustEachOther(m, others)
  teams.set(cluster, [...others, m])
  return m
}

/** The admin's one-time setup: the team schema, owned by the admin (its role is not a member: it publishes nothing). */
export async function setupSchema(cluster: Cluster): Promise<void> {
  const h = makeHome('admin@example.com')
  try {
    const r = await runCast(['team', 'join', cluster.adminUrl, '--json'], {env: {...h.env, CAST_DEVICE: 'admin-setup'}})
    if (r.code !== 0) throw new Error(`admin join: ${r.stdout} ${r.stderr}`)
    await cluster.sql(`DELETE FROM cast_team.machines WHERE device = 'admin-setup'`)
  } finally {
    h.cleanup()
  }
}

export async function until<T>(
  what: string,
  fn: () => Promise<T | null | undefined | false>,
  timeoutMs = 60_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const v = await fn()
      if (v) return v
    } catch (error) {
      last = error
    }

    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}

export {json}
