/**
 * A member the admin removed (`cast team remove`): what they queued before is refused where it
 * would run, and with their own credentials they read nothing of the team any more. A real
 * PostgreSQL cluster (pg.ts), the machines' own roles, the fake Claude Code (test/fakes) as the
 * agent the sends would reach.
 */
import fs from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {json, killStarted, makeHome, runCast} from '../helpers/cli.js'
import {userTexts} from '../fakes/agents.js'
import {castId} from '../../src/core/model/ids.js'
import {Store} from '../../src/core/store/store.js'
import {openPool} from '../../src/core/store/team/client.js'
import {carryOutActions, type RunCast} from '../../src/lib/team/executor.js'
import {castRunner} from '../../src/lib/verbs/team-runner.js'
import {type Cluster, startCluster} from './pg.js'
import {type Machine, makeMachine, setupSchema, until} from './helpers.js'

let cluster: Cluster
const machines: Machine[] = []
const clients: pg.Client[] = []
const admin = makeHome('admin@example.com')
const adminEnv = {...admin.env, CAST_DEVICE: 'admin-box'}

beforeAll(async () => {
  cluster = await startCluster()
  await setupSchema(cluster)
  const joined = await runCast(['team', 'join', cluster.adminUrl], {env: adminEnv})
  if (joined.code !== 0) throw new Error(`admin join: ${joined.stderr}`)
}, 120_000)

afterAll(async () => {
  for (const c of clients) await c.end().catch(() => {})
  for (const m of machines) await m.stopDaemon().catch(() => {})
  killStarted()
  await cluster?.destroy()
  for (const m of machines) m.h.cleanup()
  admin.cleanup()
}, 60_000)

async function machine(name: string, who: string): Promise<Machine> {
  const m = await makeMachine(cluster, name, who)
  machines.push(m)
  return m
}

function urlOf(m: Machine): string {
  return JSON.parse(fs.readFileSync(path.join(m.h.castHome, 'config.json'), 'utf8')).team.url as string
}

/** A raw connection with a machine's own credentials, as psql would have it. */
async function rawClient(m: Machine): Promise<pg.Client> {
  const c = new pg.Client({connectionString: urlOf(m)})
  c.on('error', () => {})
  await c.connect()
  clients.push(c)
  return c
}

/** How many rows of each team table a role sees. */
async function visible(c: pg.Client): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const t of ['members', 'machines', 'sessions', 'events', 'actions'])
    out[t] = Number((await c.query<{n: string}>(`SELECT count(*) AS n FROM cast_team.${t}`)).rows[0]!.n)
  return out
}

async function removeMember(role: string): Promise<void> {
  const r = await runCast(['team', 'remove', role, '--json'], {env: adminEnv})
  expect(r.code, r.stderr).toBe(0)
}

async function actionRow(id: number): Promise<Record<string, unknown>> {
  return (await cluster.sql('SELECT status, result, requested_by FROM cast_team.actions WHERE id = $1', [id]))[0]!
}

const sid = (tag: string): string => `${tag.padEnd(8, '0')}-3333-4333-8333-333333333333`

describe('team: a removed member', () => {
  it('cannot have a send queued before removal typed into a teammate’s agent, and reads nothing of the team afterwards', async () => {
    const ana = await machine('host-ana', 'ana@example.com')
    const bob = await machine('host-bob', 'bob@example.com')
    const cy = await machine('host-cy', 'cy@example.com')
    const s = sid('c1')
    const id = castId('claude_code', s)
    ana.addSession(s, {prompt: 'Migrate the billing tables', settled: true})
    bob.addSession(sid('c2'), {prompt: 'bob’s own work', settled: true})
    await ana.startDaemon()
    await bob.startDaemon()
    await until(
      'both sessions on the server',
      async () => Number((await cluster.sql('SELECT count(*) AS n FROM cast_team.sessions'))[0]!.n) === 2,
    )
    expect((await ana.cast(['own', id, 'bob@example.com'])).code).toBe(0)
    await until('bob owns it on the server', async () =>
      ((await cluster.sql('SELECT owners FROM cast_team.sessions WHERE id = $1', [id]))[0]?.owners as string[] | undefined)?.includes(
        'bob@example.com',
      ),
    )
    await ana.stopDaemon()

    // While a member, bob reads the team; cy, not party to it, does not read bob's message to ana.
    const sent = await bob.cast(['send', id.slice(0, 8), 'DROP the billing tables now', '--no-wait', '--json'])
    expect(sent.code, sent.stderr).toBe(0)
    const queued = Number(json(sent).action_id)
    const b = await rawClient(bob)
    expect(await visible(b)).toMatchObject({actions: 1, members: 3, sessions: 2})
    expect((await b.query(`SELECT count(*) AS n FROM cast_team.events`)).rows[0].n).not.toBe('0')
    const c = await rawClient(cy)
    expect(await visible(c)).toMatchObject({actions: 0, sessions: 2})
    const before = json(await bob.cast(['sessions', '--team', '--json', '--all']))
    expect(before.sessions.map((x: {id: string}) => x.id)).toContain(id)

    await removeMember('m_host_bob')
    // The queued send never reaches the agent: refused, saying why, once ana's machine is back.
    await ana.startDaemon()
    const refused = await until('the send refused', async () => {
      const r = await actionRow(queued)
      return r.status === 'refused' ? r : null
    })
    expect((refused.result as {error: string}).error).toMatch(/bob@example\.com is no longer a member of the team/)
    expect(userTexts(ana.h.home, ana.project, s)).not.toContain('DROP the billing tables now')

    // With its own credentials the removed role reads nothing: not a row of any team table.
    expect(await visible(b)).toEqual({actions: 0, events: 0, machines: 0, members: 0, sessions: 0})
    const fresh = await rawClient(bob)
    expect(await visible(fresh)).toEqual({actions: 0, events: 0, machines: 0, members: 0, sessions: 0})
    expect((await fresh.query(`SELECT count(*) AS n FROM cast_team.actions WHERE args::text LIKE '%billing%'`)).rows[0].n).toBe('0')
    // Their cast lists no former teammate's session.
    await bob.stopDaemon()
    const after = json(await bob.cast(['sessions', '--team', '--json', '--all']))
    expect(after.sessions.filter((x: {device?: string}) => x.device && x.device !== 'host-bob')).toEqual([])
    expect(after.sessions.map((x: {id: string}) => x.id)).not.toContain(id)
    // The others still read the team.
    expect((await visible(c)).sessions).toBe(1)
    void cy
  })

  it('a removal that lands while the executor runs a claimed batch: the next action is refused before anything is typed', async () => {
    const dee = await machine('host-dee', 'dee@example.com')
    const eli = await machine('host-eli', 'eli@example.com')
    const s = sid('d1')
    const id = castId('claude_code', s)
    dee.addSession(s, {prompt: 'Ship the release', settled: true})
    await dee.startDaemon()
    await until(
      'the session on the server',
      async () => (await cluster.sql('SELECT 1 FROM cast_team.sessions WHERE id = $1', [id])).length > 0,
    )
    expect((await dee.cast(['own', id, 'eli@example.com'])).code).toBe(0)
    await until('eli owns it on the server', async () =>
      ((await cluster.sql('SELECT owners FROM cast_team.sessions WHERE id = $1', [id]))[0]?.owners as string[] | undefined)?.includes(
        'eli@example.com',
      ),
    )
    await dee.stopDaemon()
    const first = json(await eli.cast(['send', id.slice(0, 8), 'Tag v2.0', '--no-wait', '--json'])).action_id as number
    const second = json(await eli.cast(['send', id.slice(0, 8), 'Now push to prod', '--no-wait', '--json'])).action_id as number

    // Dee's executor, in this process: it claims both, and the admin removes eli once the first ran.
    const store = new Store(dee.h.castHome)
    const pool = await openPool(urlOf(dee), {max: 1})
    const real = castRunner(dee.env)
    const ran: string[] = []
    const run: RunCast = async (st, a, who) => {
      const out = await real(st, a, who)
      ran.push(String(a.args.message))
      if (ran.length === 1) await removeMember('m_host_eli')
      return out
    }

    try {
      const n = await carryOutActions({device: 'host-dee', home: dee.h.castHome, now: Date.now, pool, run, store})
      expect(n).toBe(2)
    } finally {
      await pool.end()
      store.close()
    }

    expect(ran).toEqual(['Tag v2.0'])
    expect((await actionRow(first)).status).toBe('delivered')
    const r = await actionRow(second)
    expect(r.status).toBe('refused')
    expect((r.result as {error: string}).error).toMatch(/eli@example\.com is no longer a member of the team.*nothing was done/)
    await until('the first message in the transcript', async () => userTexts(dee.h.home, dee.project, s).includes('Tag v2.0'))
    expect(userTexts(dee.h.home, dee.project, s)).not.toContain('Now push to prod')
  })
})
