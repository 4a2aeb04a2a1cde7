/**
 * PostgreSQL cut off in the middle of a publish, caught there on purpose: the admin holds the
 * machine's row locked, so the daemon's `cast_team.publish` has written its batch's rows and waits
 * (uncommitted) at its last statement. Then its backend is terminated, and later the server is
 * killed (kill -9 of the postmaster, as `pg_ctl stop -m immediate` leaves it) at the same point.
 * Nothing of a cut batch is on the server; the daemon reconnects and publishes it again; every
 * transition reaches the server once, in the machine's order.
 */
import path from 'node:path'
import pg from 'pg'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {killStarted} from '../helpers/cli.js'
import {type Machine, makeMachine, setupSchema, until} from './helpers.js'
import {type Cluster, startCluster} from './pg.js'

let cluster: Cluster
let a: Machine

beforeAll(async () => {
  cluster = await startCluster()
  await setupSchema(cluster)
  a = await makeMachine(cluster, 'host-p', 'pat@example.com')
}, 120_000)

afterAll(async () => {
  await a?.stopDaemon().catch(() => {})
  killStarted()
  await cluster?.destroy()
  a?.h.cleanup()
}, 60_000)

async function local(sql: string): Promise<Record<string, unknown>[]> {
  const {default: Database} = await import('better-sqlite3')
  const db = new Database(path.join(a.h.castHome, 'cast.db'), {readonly: true})
  try {
    return db.prepare(sql).all() as Record<string, unknown>[]
  } finally {
    db.close()
  }
}

const count = async (sql: string): Promise<number> => Number((await cluster.sql(sql))[0]!.n)
const events = (): Promise<number> => count(`SELECT count(*) AS n FROM cast_team.events WHERE device = 'host-p'`)
const sessions = (): Promise<number> => count(`SELECT count(*) AS n FROM cast_team.sessions WHERE device = 'host-p'`)

/** The admin holds host-p's machine row: a publish blocks at its last statement, its rows written, not committed. */
async function holdMachineRow(): Promise<pg.Client> {
  const c = new pg.Client({connectionString: cluster.adminUrl})
  c.on('error', () => {})
  await c.connect()
  await c.query('BEGIN')
  await c.query(`SELECT 1 FROM cast_team.machines WHERE device = 'host-p' FOR UPDATE`)
  return c
}

/** The daemon's backend waiting on that lock inside publish. */
async function publishWaiting(): Promise<number> {
  return until(
    'a publish waiting mid-transaction',
    async () => {
      const r = await cluster.sql(
        `SELECT pid FROM pg_stat_activity WHERE usename = 'm_host_p' AND wait_event_type = 'Lock' AND query LIKE '%publish%'`,
      )
      return r[0] ? Number(r[0].pid) : null
    },
    60_000,
    20,
  )
}

const sid = (n: number): string => `${String(n).padStart(8, '0')}-4444-4444-8444-444444444444`

describe('team: PostgreSQL cut off mid-publish', () => {
  it('terminated backend, then a killed server, each inside a publish: nothing half-written, republished, no transition lost or doubled', async () => {
    a.addSession(sid(0), {settled: true})
    await a.startDaemon()
    await until('the first session on the server', async () => (await sessions()) === 1)
    const ev0 = await events()

    // 1. The backend terminated inside publish.
    let lock = await holdMachineRow()
    for (let i = 1; i <= 5; i++) a.addSession(sid(i), {settled: true})
    const pid = await publishWaiting()
    await cluster.sql('SELECT pg_terminate_backend($1)', [pid])
    // Still held: the daemon's next try waits at the same point; what the cut one wrote is gone.
    await publishWaiting()
    expect(await sessions()).toBe(1)
    expect(await events()).toBe(ev0)
    await lock.query('ROLLBACK')
    await lock.end()
    await until('the batch republished', async () => (await sessions()) === 6)

    // 2. The server killed inside publish.
    lock = await holdMachineRow()
    for (let i = 6; i <= 10; i++) a.addSession(sid(i), {settled: true})
    await publishWaiting()
    const evBefore = await events()
    await lock.end().catch(() => {})
    await cluster.crash()
    expect(a.daemon!.child.exitCode).toBeNull()

    await until('every session on the server', async () => (await sessions()) === 11, 120_000, 250)
    await until('the outbox drained', async () => Number((await local('SELECT count(*) AS n FROM outbox'))[0]!.n) === 0, 120_000, 250)
    expect(await events()).toBeGreaterThan(evBefore)
    const mine = (await local('SELECT seq FROM transitions ORDER BY seq')).map((r) => Number(r.seq))
    const theirs = (
      await cluster.sql(
        `SELECT (payload->>'seq')::int AS s FROM cast_team.events WHERE device = 'host-p' AND kind = 'transition' ORDER BY seq`,
      )
    ).map((r) => Number(r.s))
    expect(theirs).toEqual(mine)
    expect(a.daemon!.child.exitCode).toBeNull()
  }, 300_000)
})
