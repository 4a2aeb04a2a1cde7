/**
 * A NOTIFY flood: a role that can connect to the team's database but is not a member (PostgreSQL
 * has no privilege on LISTEN/NOTIFY, so it may notify any channel) sends 20,000 notifications on
 * the team's channels, each naming the machine. The machine's daemon treats them as hints: its
 * reads of the actions queued for it stay at most one per interval (plus the poll), counted by the
 * daemon itself (`cast team status --json`, reads). The CPU the daemon spent is printed as a
 * figure, not asserted.
 */
import fs from 'node:fs'
import pg from 'pg'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {json, killStarted} from '../helpers/cli.js'
import {type Cluster, startCluster} from './pg.js'
import {type Machine, makeMachine, setupSchema, until} from './helpers.js'

let cluster: Cluster
let m: Machine
const clients: pg.Client[] = []

beforeAll(async () => {
  cluster = await startCluster()
  await setupSchema(cluster)
  m = await makeMachine(cluster, 'host-f', 'fay@example.com')
  await cluster.sql(`CREATE ROLE intruder LOGIN PASSWORD 'intruder-pw'`)
}, 120_000)

afterAll(async () => {
  for (const c of clients) await c.end().catch(() => {})
  await m?.stopDaemon().catch(() => {})
  killStarted()
  await cluster?.destroy()
  m?.h.cleanup()
}, 60_000)

interface Reads {
  action_passes: number
  notifications: number
  pid: number
  at: string
}

async function reads(): Promise<Reads | null> {
  return json(await m.cast(['team', 'status', '--json'])).reads as Reads | null
}

/** utime + stime of a process, in clock ticks (/proc/PID/stat fields 14 and 15). */
function cpuTicks(pid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ')
  return Number(rest[11]) + Number(rest[12])
}

const INTERVAL_MS = 500

describe('team: NOTIFY is a hint', () => {
  it("20,000 notifications from a non-member: the daemon's reads stay one per interval; the role reads nothing", async () => {
    const intruder = new pg.Client({connectionString: cluster.url('intruder', 'intruder-pw')})
    intruder.on('error', () => {})
    await intruder.connect()
    clients.push(intruder)
    // Not a member: no table of the team is readable.
    await expect(intruder.query('SELECT count(*) FROM cast_team.sessions')).rejects.toMatchObject({code: '42501'})

    await m.startDaemon()
    const pid = m.daemon!.child.pid!
    const r0 = await until('the daemon counts its reads', reads)
    expect(r0.pid).toBe(pid)

    // The flood: four connections, each notification its own transaction (one transaction's
    // identical notifications would be folded into one by PostgreSQL).
    const TOTAL = 20_000
    const senders = await Promise.all(
      [0, 1, 2, 3].map(async () => {
        const c = new pg.Client({connectionString: cluster.url('intruder', 'intruder-pw')})
        c.on('error', () => {})
        await c.connect()
        clients.push(c)
        return c
      }),
    )
    const before = await until('a fresh count', async () => {
      const r = await reads()
      return r && r.action_passes > r0.action_passes ? r : null
    })
    const cpu0 = cpuTicks(pid)
    const start = Date.now()
    let sent = 0
    await Promise.all(
      senders.map(async (c) => {
        for (let n = 0; n < TOTAL / senders.length; n++) {
          await c.query(`SELECT pg_notify($1, $2)`, [n % 10 === 0 ? 'cast_team' : 'cast_actions', n % 10 === 0 ? String(n) : 'host-f'])
          sent++
        }
      }),
    )
    expect(sent).toBe(TOTAL)
    const onActions = TOTAL - TOTAL / 10
    // Every notification reached the daemon (it counts them), then its count of reads is read.
    const after = await until(
      'the daemon received the flood',
      async () => {
        const r = await reads()
        return r && r.notifications - before.notifications >= onActions ? r : null
      },
      180_000,
      250,
    )
    const elapsed = Date.now() - start
    const cpu1 = cpuTicks(pid)
    const passes = after.action_passes - before.action_passes
    // One pass per interval from the poll, at most one more per interval from the hints, and a few
    // for the counters' own lag: never one per notification.
    const bound = 2 * Math.ceil(elapsed / INTERVAL_MS) + 10
    expect(passes).toBeLessThanOrEqual(bound)
    expect(passes).toBeLessThan(onActions / 20)

    // The daemon's own baseline: an idle window after it, as long as the flood took (a figure).
    const idleA = cpuTicks(pid)
    await new Promise((r) => setTimeout(r, Math.min(elapsed, 30_000)))
    const idleB = cpuTicks(pid)
    const tick = 10 // ms per clock tick (USER_HZ 100 on Linux)
    process.stderr.write(
      `flood: ${JSON.stringify({
        elapsed_ms: elapsed,
        flood_cpu_ms: (cpu1 - cpu0) * tick,
        idle_cpu_ms: (idleB - idleA) * tick,
        idle_window_ms: Math.min(elapsed, 30_000),
        notifications: after.notifications - before.notifications,
        passes,
        passes_bound: bound,
      })}\n`,
    )
  }, 300_000)
})
