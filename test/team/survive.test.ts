/**
 * The daemon survives a dropped connection at any moment (src/lib/team/sync.ts, the 'error' listeners
 * in src/core/store/team/client.ts): while it ingests and publishes 600 new sessions (twelve before
 * each fault), its server connections are terminated (pg_terminate_backend) and the server is
 * killed with SIGKILL and restarted, 50 times at random points. The daemon process lives
 * throughout, and once the faults stop every local transition is on the server once and in the
 * machine's order.
 */
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {killStarted} from '../helpers/cli.js'
import {type Machine, makeMachine, until} from './helpers.js'
import {type Cluster, startCluster} from './pg.js'

let cluster: Cluster
let a: Machine

beforeAll(async () => {
  cluster = await startCluster()
  const pg = (await import('pg')).default
  const {migrateTeam} = await import('../../src/core/store/team/schema.js')
  const pool = new pg.Pool({connectionString: cluster.adminUrl, max: 1})
  const client = await pool.connect()
  try {
    await migrateTeam(client)
  } finally {
    client.release()
    await pool.end()
  }

  a = await makeMachine(cluster, 'host-s', 'sam@example.com')
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

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

describe('daemon survival', () => {
  it('50 dropped connections and server kills at random points of a large publish: the daemon lives; every transition reaches the server once, in order', async () => {
    await a.startDaemon()
    const daemon = a.daemon!
    let stderr = ''
    daemon.child.stderr!.on('data', (c) => (stderr += String(c)))
    const alive = (): boolean => daemon.child.exitCode === null && daemon.child.signalCode === null

    // Twelve new sessions before each fault: the daemon ingests and publishes all along.
    let written = 0
    const figures = {crash: 0, inFlight: 0, terminate: 0}
    for (let f = 0; f < 50; f++) {
      for (let i = 0; i < 12; i++, written++) {
        a.addSession(`${String(written).padStart(8, '0')}-2222-4222-8222-222222222222`, {prompt: `task ${written}`, settled: i % 2 === 0})
      }

      await sleep(20 + Math.floor(Math.random() * 300))
      if (f % 5 === 4) {
        await cluster.crash()
        figures.crash++
      } else {
        // Aim at a call in flight when there is one within 300 ms (a publish batch, a claim).
        let hit: Record<string, unknown>[] = []
        for (let t = 0; t < 30 && !hit.some((h) => h.state === 'active'); t++) {
          hit = await cluster.sql(`SELECT pid, state FROM pg_stat_activity WHERE usename = 'm_host_s'`)
          if (!hit.some((h) => h.state === 'active')) await sleep(10)
        }

        await cluster.sql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'm_host_s'`)
        figures.terminate++
        if (hit.some((h) => h.state === 'active')) figures.inFlight++
      }

      if (process.env.CAST_TEST_TRACE) process.stderr.write(`fault ${f + 1} ${JSON.stringify(figures)} written ${written}\n`)
      expect(alive(), `the daemon died after fault ${f + 1}: ${stderr.slice(-2000)}`).toBe(true)
    }

    expect(written).toBe(600)
    // Faults over: everything pending reaches the server.
    await until(
      'the outbox drained',
      async () => Number((await local('SELECT count(*) AS n FROM outbox'))[0]!.n) === 0,
      180_000,
      250,
    ).catch(async (error: Error) => {
      const outbox = (await local('SELECT count(*) AS n FROM outbox'))[0]!.n
      const sessions = (await local('SELECT count(*) AS n FROM sessions'))[0]!.n
      throw new Error(`${error.message}; outbox ${outbox}, sessions ${sessions}; daemon: ${stderr.slice(-3000)}`)
    })
    expect(alive()).toBe(true)
    expect(stderr).not.toMatch(/Unhandled 'error' event|uncaught/i)

    const mine = (await local('SELECT seq FROM transitions ORDER BY seq')).map((r) => Number(r.seq))
    const theirs = (
      await cluster.sql(
        `SELECT (payload->>'seq')::int AS s FROM cast_team.events WHERE device = 'host-s' AND kind = 'transition' ORDER BY seq`,
      )
    ).map((r) => Number(r.s))
    expect(mine.length).toBeGreaterThanOrEqual(300)
    expect(theirs).toEqual(mine) // once each, in the machine's order
    const sessions = Number((await cluster.sql(`SELECT count(*) AS n FROM cast_team.sessions WHERE device = 'host-s'`))[0]!.n)
    expect(sessions).toBe(Number((await local('SELECT count(*) AS n FROM sessions'))[0]!.n))
    process.stderr.write(`survive: ${JSON.stringify({...figures, transitions: mine.length})}\n`)
  }, 600_000)
})
