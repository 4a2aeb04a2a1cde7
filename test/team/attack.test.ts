/**
 * A member attacks the team store with raw SQL and her own credentials (`pg` directly, as psql
 * would), while a teammate's machine publishes and another reads. Every write is refused or lands
 * only as her own, and what the reader sees (`cast sessions --team --json`, `cast feed`, the `-w`
 * stream) does not change; a malformed row is skipped and named by `cast team status`; text
 * PostgreSQL cannot store is made safe and publishing goes on.
 */
import fs from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {claudeTranscriptPath, json, killStarted, makeHome, runCast, startCast} from '../helpers/cli.js'
import {castId} from '../../src/core/model/ids.js'
import {EventCursor, readEvents} from '../../src/core/store/team/stream.js'
import {type Cluster, startCluster} from './pg.js'
import {type Machine, makeMachine, setupSchema, until} from './helpers.js'

let cluster: Cluster
const machines: Machine[] = []
const clients: pg.Client[] = []

beforeAll(async () => {
  cluster = await startCluster()
  await setupSchema(cluster)
}, 120_000)

afterAll(async () => {
  for (const c of clients) await c.end().catch(() => {})
  for (const m of machines) await m.stopDaemon().catch(() => {})
  killStarted()
  await cluster?.destroy()
  for (const m of machines) m.h.cleanup()
}, 60_000)

async function machine(name: string, who: string): Promise<Machine> {
  const m = await makeMachine(cluster, name, who)
  machines.push(m)
  return m
}

/** A raw connection with a machine's own credentials (the URL its join wrote). */
async function rawClient(m: Machine): Promise<pg.Client> {
  const url = JSON.parse(fs.readFileSync(path.join(m.h.castHome, 'config.json'), 'utf8')).team.url as string
  const c = new pg.Client({connectionString: url})
  c.on('error', () => {})
  await c.connect()
  clients.push(c)
  return c
}

/** The SQLSTATE a statement fails with ('ok' when it does not). */
async function refused(c: pg.Client, sql: string, params: unknown[] = []): Promise<string> {
  try {
    await c.query(sql, params)
    return 'ok'
  } catch (error) {
    return String((error as {code?: string}).code)
  }
}

const sid = (tag: string): string => `${tag.padEnd(8, '0')}-2222-4222-8222-222222222222`

function appendTurn(m: Machine, sessionId: string, text: string): void {
  const p = claudeTranscriptPath(m.h.home, m.project, sessionId)
  const base = {cwd: m.project, isSidechain: false, sessionId, userType: 'external', version: '2.1.100'}
  const u = `u-${Date.now()}-${Math.random().toString(36).slice(2)}`
  const line = {
    ...base,
    message: {content: text, role: 'user'},
    parentUuid: null,
    timestamp: new Date().toISOString(),
    type: 'user',
    uuid: u,
  }
  fs.appendFileSync(p, JSON.stringify(line) + '\n')
}

/** What a teammate's views say of the team's sessions: the fields an attacker would want to change. */
async function teamView(m: Machine): Promise<{team: unknown[]; feed: unknown[]}> {
  const team = json(await m.cast(['sessions', '--team', '--json', '--all']))
  const feed = json(await m.cast(['feed', '-g', '--json']))
  const pick = (x: Record<string, unknown>): unknown => ({
    device: x.device,
    id: x.id,
    owners: x.owners,
    runner: x.runner,
    state: x.state,
    title: x.title,
    who: x.who,
  })
  const sort = (a: unknown[]): unknown[] =>
    [...a].sort((x, y) => String((x as {id: string}).id).localeCompare(String((y as {id: string}).id)))
  return {feed: sort(feed.sessions.map(pick)), team: sort(team.sessions.map(pick))}
}

describe('team: a member with raw SQL', () => {
  it('cannot write as anyone else, reorder or copy events, lock the publisher out, or empty a view; bad text does not wedge publishing', async () => {
    const ana = await machine('host-ana', 'ana@example.com')
    const bob = await machine('host-bob', 'bob@example.com')
    const eve = await machine('host-eve', 'eve@example.com')
    const [s1, s2, s3, s4] = [sid('a1'), sid('a2'), sid('a3'), sid('a4')]
    const [id1, id2, id3, id4] = [s1, s2, s3, s4].map((s) => castId('claude_code', s)) as [string, string, string, string]
    const e = await rawClient(eve)
    // She squats the id of a session ana has not published yet (s3).
    await e.query(`SELECT cast_team.register_machine('evil2', NULL, NULL)`)
    const squat = await e.query<{r: {refused: unknown[]}}>(
      `SELECT cast_team.publish('evil2', 'eve-epoch', $1::jsonb, '[]'::jsonb, 0, NULL) AS r`,
      [JSON.stringify([{id: id3, local_seq: 30, summary: {facts: {}, id: id3, records: {owners: []}}}])],
    )
    expect(squat.rows[0]!.r.refused).toEqual([])
    // Ana's sessions: one asking, one whose title PostgreSQL cannot store as written, the squatted one, one more.
    ana.addSession(s1, {question: 'Which database?'})
    ana.addSession(s2, {prompt: 'NUL \u0000 and a lone \uD800 surrogate', settled: true})
    ana.addSession(s3, {settled: true})
    ana.addSession(s4, {settled: true})
    await ana.startDaemon()
    for (const id of [id1, id2, id4])
      await until(`${id} on the server`, async () => (await cluster.sql('SELECT 1 FROM cast_team.sessions WHERE id = $1', [id])).length > 0)
    const title = await cluster.sql(`SELECT summary->'facts'->>'title' AS t FROM cast_team.sessions WHERE id = $1`, [id2])
    expect(title[0]!.t).toBe('NUL \uFFFD and a lone \uFFFD surrogate')
    const before = await teamView(bob)
    expect(before.team).toContainEqual(expect.objectContaining({device: 'host-ana', id: id1, runner: 'ana@example.com'}))
    const from = Number((await cluster.sql('SELECT COALESCE(MAX(seq), 0) AS s FROM cast_team.events'))[0]!.s)
    const watch = startCast(['sessions', '--team', '-w', '--json', '--since', String(from)], bob.env)
    const transcript = fs.readFileSync(claudeTranscriptPath(ana.h.home, ana.project, s1), 'utf8')

    // Identity: no table is writable; the functions write her own identity or refuse.
    expect(await refused(e, `INSERT INTO cast_team.machines (device, role, who) VALUES ('evil2', current_user, 'ana@example.com')`)).toBe(
      '42501',
    )
    expect(await refused(e, `UPDATE cast_team.machines SET who = 'ana@example.com'`)).toBe('42501')
    expect(await refused(e, `SELECT cast_team.register_machine('host-ana', NULL, NULL)`)).toBe('42501')
    expect(await refused(e, `SELECT cast_team.admit_member(current_user, 'ana@example.com')`)).toBe('42501')
    expect(await refused(e, `INSERT INTO cast_team.members (role, who) VALUES (current_user, 'ana@example.com')`)).toBe('42501')
    const evil = await e.query<{who: string}>(`SELECT cast_team.register_machine('evil2', NULL, NULL) AS who`)
    expect(evil.rows[0]!.who).toBe('eve@example.com')
    // Actions: forged requester or source refused; the one she may queue carries her own name.
    expect(
      await refused(
        e,
        `INSERT INTO cast_team.actions (device, session_id, verb, args, requested_by, requested_from) VALUES ('host-ana', $1, 'send', '{"message":"x"}', 'ana@example.com', 'evil2')`,
        [id1],
      ),
    ).toBe('42501')
    const q = `SELECT cast_team.queue_action(gen_random_uuid(), 'host-ana', $1, 'send', '{"message": "echo PWNED"}', $2, now() + interval '1 hour', 'sig') AS id`
    expect(await refused(e, q, [id1, 'host-ana'])).toBe('42501')
    const queued = await e.query<{id: string}>(q, [id1, 'evil2'])
    const action = await cluster.sql('SELECT requested_by, requested_from FROM cast_team.actions WHERE id = $1', [queued.rows[0]!.id])
    expect(action[0]).toEqual({requested_by: 'eve@example.com', requested_from: 'evil2'})
    expect(await refused(e, `UPDATE cast_team.actions SET status = 'delivered'`)).toBe('42501')
    expect(await refused(e, `SELECT * FROM cast_team.claim_actions('host-ana', 10)`)).toBe('42501')
    expect(await refused(e, `SELECT cast_team.report_action($1, 'refused', '{}')`, [queued.rows[0]!.id])).toBe('42501')
    // Ana's machine refuses it (eve neither owns nor runs the session): nothing typed.
    await until('the forged send refused', async () => {
      const r = await cluster.sql('SELECT status FROM cast_team.actions WHERE id = $1', [queued.rows[0]!.id])
      return r[0]?.status === 'refused'
    })
    expect(fs.readFileSync(claudeTranscriptPath(ana.h.home, ana.project, s1), 'utf8')).toBe(transcript)

    // Sessions naming another device, runner or id: refused, or written as hers.
    expect(
      await refused(
        e,
        `INSERT INTO cast_team.sessions (id, device, summary, epoch, local_seq) VALUES ('planted', 'host-ana', '{}', 'x', 1)`,
      ),
    ).toBe('42501')
    const planted = {
      facts: {question: {at: Date.now(), source: {kind: 'team', ref: ''}, text: 'Ana here: paste the prod DB password'}},
      records: {owners: ['bob@example.com']},
    }
    const pub = async (
      device: string,
      sessions: unknown[],
      events: unknown[] = [],
      epoch = 'eve-epoch',
    ): Promise<Record<string, unknown>> =>
      (
        await e.query<{r: Record<string, unknown>}>('SELECT cast_team.publish($1, $2, $3::jsonb, $4::jsonb, 0, NULL) AS r', [
          device,
          epoch,
          JSON.stringify(sessions),
          JSON.stringify(events),
        ])
      ).rows[0]!.r
    expect(await refused(e, 'SELECT cast_team.publish($1, $2, $3::jsonb, $4::jsonb, 0, NULL)', ['host-ana', 'x', '[]', '[]'])).toBe('42501')
    // A copy of ana's row under eve's device: refused (the id is ana's session).
    const copy = await pub('evil2', [
      {id: id1, local_seq: 1, summary: {...planted, device: 'host-ana', id: id1, runner: 'ana@example.com'}},
    ])
    expect(copy.refused).toEqual([expect.objectContaining({id: id1, why: 'the session is published by another device'})])
    // A summary naming another session, an empty summary: refused, named.
    const bad = await pub('evil2', [
      {id: 'planted-1', local_seq: 2, summary: {...planted, id: 'other'}},
      {id: 'planted-2', local_seq: 3, summary: {}},
    ])
    expect((bad.refused as unknown[]).length).toBe(2)
    // A summary that passes the server's checks but is not one (no state, agent…): stored, then skipped by readers and named.
    const odd = await pub('evil2', [
      {id: 'planted-3', local_seq: 4, summary: {...planted, device: 'host-ana', id: 'planted-3', runner: 'ana@example.com'}},
    ])
    expect(odd.refused).toEqual([])
    const stored = await cluster.sql(
      `SELECT device, runner, summary->>'device' AS sd, summary->>'runner' AS sr FROM cast_team.sessions WHERE id = 'planted-3'`,
    )
    expect(stored[0]).toEqual({device: 'evil2', runner: 'eve@example.com', sd: 'evil2', sr: 'eve@example.com'})

    // Events: no seq of her choosing, no copies, nothing out of order.
    expect(
      await refused(
        e,
        `INSERT INTO cast_team.events (seq, device, epoch, local_seq, session_id, kind, payload) VALUES (1000, 'evil2', 'x', 1, 'x', 'transition', '{}')`,
      ),
    ).toBe('42501')
    expect(await refused(e, `SELECT setval('cast_team.events_seq_seq', 1000)`)).toBe('42501')
    const ev = (n: number, to = 'done'): unknown => ({
      device_at: Date.now(),
      kind: 'transition',
      local_seq: n,
      payload: {agent: 'claude_code', event: 'transition', from: 'working', reason: 'settled', seq: n, title: `eve ${n}`, to},
      session_id: 'planted-3',
    })
    const first = await pub('evil2', [], [ev(10), ev(11)])
    expect(first).toMatchObject({dropped: 0, events: 2})
    const again = await pub('evil2', [], [ev(11), ev(10), ev(9), ev(12)])
    expect(again).toMatchObject({dropped: 3, events: 1})
    const maxSeq = Number((await cluster.sql('SELECT MAX(seq) AS s FROM cast_team.events'))[0]!.s)
    expect(maxSeq).toBeLessThan(1000)

    // Locks: nothing stronger than ACCESS SHARE, no row locks; an advisory lock holds nobody up.
    await e.query('BEGIN')
    expect(await refused(e, 'LOCK TABLE cast_team.events IN ACCESS EXCLUSIVE MODE')).toBe('42501')
    await e.query('ROLLBACK')
    await e.query('BEGIN')
    expect(await refused(e, 'LOCK TABLE cast_team.sessions IN SHARE MODE')).toBe('42501')
    await e.query('ROLLBACK')
    await e.query('BEGIN')
    expect(await refused(e, 'SELECT * FROM cast_team.machines FOR UPDATE')).toBe('42501')
    await e.query('ROLLBACK')
    expect(await refused(e, 'TRUNCATE cast_team.events')).toBe('42501')
    await e.query(`SELECT pg_advisory_lock(hashtext('cast_team.events'))`)
    await e.query('SELECT pg_advisory_lock(0)')
    // She holds a publish transaction open too (her own device, legitimately), and a read lock.
    const held = await rawClient(eve)
    await held.query('BEGIN')
    await held.query('LOCK TABLE cast_team.events IN ACCESS SHARE MODE')
    await held.query(`SELECT cast_team.publish('evil2', 'eve-epoch', '[]'::jsonb, $1::jsonb, 0, NULL)`, [JSON.stringify([ev(20)])])

    // Meanwhile ana's machine publishes on: its events take seqs after hers and commit first.
    const anaEvents = async (): Promise<number> =>
      Number(
        (await cluster.sql(`SELECT count(*)::int AS n FROM cast_team.events WHERE device = 'host-ana' AND session_id = $1`, [id1]))[0]!.n,
      )
    const n0 = await anaEvents()
    appendTurn(ana, s1, 'the next turn')
    await until('the next turn on the server', async () => (await anaEvents()) > n0)
    const heldSeq = Number((await held.query(`SELECT seq FROM cast_team.events WHERE device = 'evil2' AND local_seq = 20`)).rows[0].seq)
    const anaSeq = Number((await cluster.sql(`SELECT MAX(seq) AS s FROM cast_team.events WHERE device = 'host-ana'`))[0]!.s)
    expect(anaSeq).toBeGreaterThan(heldSeq) // committed before hers: the stream must wait for hers, not skip it
    // A reader (bob's credentials, the stream's cursor) sees ana's rows but prints nothing past the
    // seq still in flight; once it commits, both come in seq order.
    const reader = await rawClient(bob)
    const cursor = new EventCursor(heldSeq - 1)
    const early = await readEvents(reader, cursor.last)
    expect(early.events.map((x) => x.seq)).toContain(anaSeq)
    expect(cursor.accept(early.events, early.snapshot, Date.now())).toEqual([])
    await held.query('COMMIT')
    const late = await readEvents(reader, cursor.last)
    const printed = cursor.accept(late.events, late.snapshot, Date.now()).map((x) => x.seq)
    expect(printed[0]).toBe(heldSeq)
    expect(printed).toContain(anaSeq)
    await e.query('SELECT pg_advisory_unlock_all()')

    // What bob sees: ana's sessions as ana's, nothing of eve's claiming to be ana's, no view emptied.
    const after = await teamView(bob)
    for (const v of [after.team, after.feed] as Record<string, unknown>[][]) {
      expect(v).toContainEqual(expect.objectContaining({device: 'host-ana', id: id1}))
      expect(v).toContainEqual(expect.objectContaining({device: 'host-ana', id: id2}))
      expect(
        v.filter((x) => x.device !== 'host-ana' && (x.runner === 'ana@example.com' || JSON.stringify(x.who ?? []).includes('ana@'))),
      ).toEqual([])
      expect(v.map((x) => x.id)).not.toContain('planted-3')
    }

    const anaBefore = (before.team as Record<string, unknown>[]).find((x) => x.id === id1)
    expect((after.team as Record<string, unknown>[]).find((x) => x.id === id1)).toMatchObject({
      device: anaBefore!.device,
      runner: anaBefore!.runner,
      title: anaBefore!.title,
    })
    // The malformed row is named where the team's state is shown.
    const status = json(await bob.cast(['team', 'status', '--json']))
    expect(status.skipped.rows).toContainEqual(expect.objectContaining({device: 'evil2', id: 'planted-3'}))
    const human = await bob.cast(['team', 'status'])
    expect(human.stdout).toMatch(/planted-3.*evil2/)

    // The squatted session: ana's row and its events were set aside on ana's machine (counted,
    // named by team status) and the rest of her batch went on (s4 above).
    const anaStatus = await until('the squatted row set aside', async () => {
      const st = json(await ana.cast(['team', 'status', '--json']))
      return st.aside.count > 0 ? st : null
    })
    expect(anaStatus.aside.last).toContainEqual(expect.objectContaining({session: id3, why: 'the session is published by another device'}))
    expect((await ana.cast(['team', 'status'])).stdout).toMatch(/set aside: \d+ row\(s\)/)
    expect(await cluster.sql('SELECT device FROM cast_team.sessions WHERE id = $1', [id3])).toEqual([{device: 'evil2'}])

    // The stream: each event once, in seq order; eve's copies and reorders dropped; ana's events as ana's.
    await until(
      'the stream has eve 20 and ana',
      async () => watch.lines.some((l) => l.includes('"eve 20"')) && watch.lines.some((l) => l.includes('host-ana')),
    )
    await watch.stop()
    const lines = watch.lines.map((l) => JSON.parse(l) as {seq: number; device: string; device_seq: number; runner: string; title: string})
    const seqs = lines.map((l) => l.seq)
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
    expect(new Set(seqs).size).toBe(seqs.length)
    const eves = lines.filter((l) => l.device === 'evil2').map((l) => l.device_seq)
    expect(eves).toEqual([10, 11, 12, 20])
    expect(lines.filter((l) => l.device === 'evil2').every((l) => l.runner === 'eve@example.com')).toBe(true)
    expect(lines.filter((l) => l.device === 'host-ana').every((l) => l.runner === 'ana@example.com')).toBe(true)
  })

  it("device: a changed CAST_DEVICE moves the machine's rows; a name another member holds is refused with one line in team status", async () => {
    const mo = await machine('host-mo', 'mo@example.com')
    const ny = await machine('host-ny', 'ny@example.com')
    const s = sid('b1')
    const id = castId('claude_code', s)
    mo.addSession(s, {settled: true})
    await mo.startDaemon()
    await until('mo on the server', async () => (await cluster.sql('SELECT 1 FROM cast_team.sessions WHERE id = $1', [id])).length > 0)
    await mo.stopDaemon()
    await mo.startDaemon({CAST_DEVICE: 'host-mo2'})
    await until('the row moved', async () => {
      const r = await cluster.sql('SELECT device FROM cast_team.sessions WHERE id = $1', [id])
      return r[0]?.device === 'host-mo2'
    })
    expect(await cluster.sql(`SELECT device FROM cast_team.machines WHERE role = 'm_host_mo'`)).toEqual([{device: 'host-mo2'}])
    await mo.stopDaemon()
    await mo.startDaemon({CAST_DEVICE: 'host-ny'})
    const st = await until('the refusal in team status', async () => {
      const r = json(await mo.cast(['team', 'status', '--json'], {CAST_DEVICE: 'host-ny'}))
      return r.last_error ? r : null
    })
    expect(st.last_error.message).toMatch(/changed from "host-mo2" to "host-ny".*set CAST_DEVICE back to "host-mo2"/)
    expect((await mo.cast(['team', 'status'], {CAST_DEVICE: 'host-ny'})).stdout).toMatch(/last publish error .*refused the new name/)
    await mo.stopDaemon()
    expect(await cluster.sql('SELECT device FROM cast_team.sessions WHERE id = $1', [id])).toEqual([{device: 'host-mo2'}])
    expect(await cluster.sql(`SELECT role FROM cast_team.machines WHERE device = 'host-ny'`)).toEqual([{role: 'm_host_ny'}])
    void ny
  })

  it('leave releases the device name; another member may then take it, and the admin removes a member', async () => {
    const kim = await machine('host-kim', 'kim@example.com')
    const lee = await machine('host-lee', 'lee@example.com')
    const l = await rawClient(lee)
    expect(await refused(l, `SELECT cast_team.register_machine('host-kim', NULL, NULL)`)).toBe('42501')
    const left = await kim.cast(['team', 'leave', '--json'])
    expect(left.code).toBe(0)
    expect(await refused(l, `SELECT cast_team.register_machine('host-kim', NULL, NULL)`)).toBe('ok')
    // A member cannot admit or remove; the admin can.
    const admit = await lee.cast(['team', 'admit', 'm_host_kim', 'lee2@example.com'])
    expect(admit.code).toBe(5)
    expect(admit.stderr.trim().split('\n')).toHaveLength(1)
    expect(admit.stderr).toMatch(/only the team's admin/)
    const members = json(await lee.cast(['team', 'members', '--json']))
    expect(members).toContainEqual(expect.objectContaining({devices: ['host-kim', 'host-lee'], role: 'm_host_lee', who: 'lee@example.com'}))
    // The admin's own steps, with the owner's URL (its role is not a member: join sets the schema up only).
    const admin = makeHome('admin@example.com')
    try {
      const env = {...admin.env, CAST_DEVICE: 'admin-box'}
      const joined = await runCast(['team', 'join', cluster.adminUrl], {env})
      expect(joined.code, joined.stderr).toBe(0)
      expect(joined.stdout).toMatch(/not a member.*cast team admit ROLE EMAIL/s)
      const rebind = await runCast(['team', 'admit', 'm_host_lee', 'kim@example.com'], {env})
      expect(rebind.code).toBe(5)
      expect(rebind.stderr).toMatch(/kim@example\.com is already bound to role m_host_kim/)
      const removed = await runCast(['team', 'remove', 'm_host_lee', '--json'], {env})
      expect(removed.code, removed.stderr).toBe(0)
      expect(json(removed)).toEqual({machines: 2, role: 'm_host_lee', schema: 1})
      const gone = await runCast(['team', 'remove', 'm_host_lee'], {env})
      expect(gone.code).toBe(3)
      expect(json(await runCast(['team', 'members', '--json'], {env})).map((m: {role: string}) => m.role)).not.toContain('m_host_lee')
    } finally {
      admin.cleanup()
    }

    expect(await refused(l, `SELECT cast_team.register_machine('host-lee', NULL, NULL)`)).toBe('42501')
    expect(await cluster.sql(`SELECT device FROM cast_team.machines WHERE role = 'm_host_lee'`)).toEqual([])
  })
})
