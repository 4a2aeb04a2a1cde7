/**
 * `cast daemon --once` from cron on a machine of a team does what one daemon pass does: it
 * publishes the machine's sessions and records to the team store, and carries out the actions
 * teammates queued for it (docs/team.md). A throwaway PostgreSQL cluster (test/team/pg.ts).
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {killStarted} from '../helpers/cli.js'
import {userTexts} from '../fakes/agents.js'
import {castId} from '../../src/core/model/ids.js'
import {type Cluster, startCluster} from './pg.js'
import {json, type Machine, makeMachine, setupSchema, until} from './helpers.js'

let cluster: Cluster
const machines: Machine[] = []

beforeAll(async () => {
  cluster = await startCluster()
  await setupSchema(cluster)
}, 120_000)

afterAll(async () => {
  killStarted()
  await cluster?.destroy()
  for (const m of machines) m.h.cleanup()
}, 60_000)

describe('cast daemon --once in a team', () => {
  it("publishes the machine's sessions and a handoff, and carries out a teammate's queued send once", async () => {
    const a = await makeMachine(cluster, 'cron-a', 'cora@example.com')
    const b = await makeMachine(cluster, 'cron-b', 'dina@example.com')
    machines.push(a, b)
    const s = '0cce0000-1111-4111-8111-111111111111'
    a.addSession(s, {prompt: 'Rotate the keys', settled: true})
    const id = castId('claude_code', s)
    const row = async (): Promise<Record<string, unknown> | undefined> =>
      (await cluster.sql('SELECT * FROM cast_team.sessions WHERE id = $1', [id]))[0]

    const first = await a.cast(['daemon', '--once', '--json'])
    expect(first.code, first.stderr).toBe(0)
    expect(await row()).toMatchObject({device: 'cron-a', runner: 'cora@example.com', state: 'needs_input'})
    expect(json(first).team_reached).toBe(true)

    expect((await a.cast(['own', id, 'dina@example.com'])).code).toBe(0)
    expect((await a.cast(['daemon', '--once'])).code).toBe(0)
    expect((await row())?.owners).toEqual(['dina@example.com'])

    // Her message waits in the team store until the next pass on A carries it out.
    const sent = await b.cast(['send', id.slice(0, 8), 'Use the new vault', '--no-wait', '--json'])
    expect(sent.code, sent.stderr).toBe(0)
    expect(userTexts(a.h.home, a.project, s)).not.toContain('Use the new vault')
    expect((await a.cast(['daemon', '--once'])).code).toBe(0)
    await until('the message in the transcript', async () => userTexts(a.h.home, a.project, s).includes('Use the new vault'))
    expect((await a.cast(['daemon', '--once'])).code).toBe(0)
    expect(userTexts(a.h.home, a.project, s).filter((t) => t === 'Use the new vault')).toHaveLength(1)
    expect(await cluster.sql(`SELECT status FROM cast_team.actions WHERE session_id = $1`, [id])).toEqual([{status: 'delivered'}])
  })
})
