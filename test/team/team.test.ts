/**
 * The team across machines on one real PostgreSQL (issue 17): a throwaway cluster per run,
 * simulated machines (own HOME, CAST_HOME, CAST_DEVICE, identity and role), each with its cast
 * daemon. Faults: server restart mid-sync, dropped connections, a machine cut off for an hour of
 * its own time, clock skew, concurrent answers. Nothing lost, nothing doubled.
 */
import fs from 'node:fs'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {claudeTranscriptPath, json, killStarted, runCast, startCast, waitForWatcher} from '../helpers/cli.js'
import {userTexts} from '../fakes/agents.js'
import {castId} from '../../src/core/model/ids.js'
import {type Cluster, startCluster} from './pg.js'
import {link, type Link, type Machine, makeMachine, setupSchema, until} from './helpers.js'

let cluster: Cluster
const machines: Machine[] = []
const links: Link[] = []

beforeAll(async () => {
  cluster = await startCluster()
  await setupSchema(cluster)
}, 120_000)

afterAll(async () => {
  for (const m of machines) await m.stopDaemon().catch(() => {})
  killStarted()
  for (const l of links) await l.close().catch(() => {})
  await cluster?.destroy()
  for (const m of machines) m.h.cleanup()
}, 60_000)

async function machine(name: string, who: string, o: {port?: number} = {}): Promise<Machine> {
  const m = await makeMachine(cluster, name, who, o)
  machines.push(m)
  return m
}

const sid = (n: number, tag: string): string => `${tag}${String(n).padStart(8 - tag.length, '0')}-1111-4111-8111-111111111111`.slice(0, 36)

async function serverRow(id: string): Promise<Record<string, unknown> | undefined> {
  return (await cluster.sql('SELECT * FROM cast_team.sessions WHERE id = $1', [id]))[0]
}

/** Local transitions of a machine's store (to compare with what reached the server). */
async function localTransitions(m: Machine): Promise<number[]> {
  const {default: Database} = await import('better-sqlite3')
  const db = new Database(path.join(m.h.castHome, 'cast.db'), {readonly: true})
  try {
    return (db.prepare('SELECT seq FROM transitions ORDER BY seq').all() as {seq: number}[]).map((r) => r.seq)
  } finally {
    db.close()
  }
}

async function publishedTransitions(device: string): Promise<number[]> {
  return (
    await cluster.sql(`SELECT (payload->>'seq')::int AS s FROM cast_team.events WHERE device = $1 AND kind = 'transition' ORDER BY seq`, [
      device,
    ])
  ).map((r) => Number(r.s))
}

describe('team', () => {
  it('handoff: a session handed to a teammate on one machine is in her inbox on hers, with device and runner; her answer arrives in the agent once', async () => {
    const a = await machine('laptop-a', 'bob@example.com')
    const b = await machine('laptop-b', 'ana@example.com')
    const s = sid(1, 'a')
    a.addSession(s, {settled: true, prompt: 'Plan the migration'})
    const id = castId('claude_code', s)
    await a.startDaemon()
    await until('the session on the server', () => serverRow(id))
    // Not hers yet: not in her inbox, but the team view and the feed show it.
    let inbox = json(await b.cast(['sessions', '--json']))
    expect(inbox.sessions.map((x: {id: string}) => x.id)).not.toContain(id)
    const team = json(await b.cast(['sessions', '--team', '--json']))
    const row = team.sessions.find((x: {id: string}) => x.id === id)
    expect(row).toMatchObject({
      device: 'laptop-a',
      runner: 'bob@example.com',
      state: 'needs_input',
      reason: 'settled',
      title: 'Plan the migration',
    })
    const feed = json(await b.cast(['feed', '-g', '--json']))
    expect(feed.sessions.find((x: {id: string}) => x.id === id)).toMatchObject({device: 'laptop-a', who: ['bob@example.com']})

    // The handoff on A reaches the team store (issue 17 asks for a second: measured and recorded, not asserted).
    const own = await a.cast(['own', id, 'ana@example.com', '--json'])
    expect(own.code).toBe(0)
    const handed = Date.now()
    await until(
      'the handoff on the server',
      async () => ((await serverRow(id))?.owners as string[] | undefined)?.includes('ana@example.com'),
      10_000,
      10,
    )
    const latency = Date.now() - handed
    fs.appendFileSync(
      path.join(a.h.dir, '..', 'cast-team-figures.jsonl'),
      JSON.stringify({at: new Date().toISOString(), handoff_ms: latency}) + '\n',
    )
    // The figure is recorded (cast-team-figures.jsonl, bench/team); the 10 s bound above is liveness.
    inbox = json(await b.cast(['sessions', '--json']))
    expect(inbox.sessions.find((x: {id: string}) => x.id === id)).toMatchObject({
      device: 'laptop-a',
      owners: ['ana@example.com'],
      runner: 'bob@example.com',
    })

    // Her answer, typed on her machine, goes into the agent on A: exactly once.
    const sent = await b.cast(['send', id.slice(0, 8), 'Use the staging database', '--json'])
    expect(sent.code, sent.stderr).toBe(0)
    expect(json(sent)).toMatchObject({device: 'laptop-a', status: 'delivered'})
    await until('the answer in the transcript', async () => userTexts(a.h.home, a.project, s).includes('Use the staging database'))
    await new Promise((r) => setTimeout(r, 1500))
    expect(userTexts(a.h.home, a.project, s).filter((t) => t === 'Use the staging database')).toHaveLength(1)
    const action = await cluster.sql(`SELECT * FROM cast_team.actions WHERE session_id = $1`, [id])
    expect(action).toHaveLength(1)
    expect(action[0]).toMatchObject({requested_by: 'ana@example.com', requested_from: 'laptop-b', status: 'delivered'})
  })

  it("watch ingests: cast sessions -w with its own ingester (no daemon) publishes a handoff and carries out a teammate's send once", async () => {
    const a = await machine('laptop-w', 'wren@example.com')
    const b = await machine('laptop-z', 'zoe@example.com')
    const s = sid(9, 'ab')
    a.addSession(s, {settled: true, prompt: 'Tidy the logs'})
    const id = castId('claude_code', s)
    const watch = startCast(['sessions', '-w', '--json'], a.env)
    try {
      await waitForWatcher(a.h.castHome, 60_000)
      await until('the session on the server', () => serverRow(id))
      expect((await a.cast(['own', id, 'zoe@example.com'])).code).toBe(0)
      await until(
        'the handoff on the server',
        async () => ((await serverRow(id))?.owners as string[] | undefined)?.includes('zoe@example.com'),
        10_000,
        20,
      )
      const sent = await b.cast(['send', id.slice(0, 8), 'Keep a week of logs', '--json'])
      expect(sent.code, sent.stderr).toBe(0)
      expect(json(sent)).toMatchObject({device: 'laptop-w', status: 'delivered'})
      await until('the message in the transcript', async () => userTexts(a.h.home, a.project, s).includes('Keep a week of logs'))
      await new Promise((r) => setTimeout(r, 1500))
      expect(userTexts(a.h.home, a.project, s).filter((t) => t === 'Keep a week of logs')).toHaveLength(1)
      expect(await cluster.sql(`SELECT status FROM cast_team.actions WHERE session_id = $1`, [id])).toEqual([{status: 'delivered'}])
    } finally {
      await watch.stop()
    }
  })

  it('who may: a teammate who neither owns nor runs a session is refused and nothing changes; a machine cannot write rows for another device', async () => {
    const a = await machine('host-p', 'pat@example.com')
    const c = await machine('host-q', 'quinn@example.com')
    const s = sid(2, 'b')
    a.addSession(s, {question: 'Ship it today?'})
    const id = castId('claude_code', s)
    await a.startDaemon()
    await until('the session on the server', () => serverRow(id))
    const before = fs.readFileSync(claudeTranscriptPath(a.h.home, a.project, s), 'utf8')
    const kill = await c.cast(['kill', id, '--json'])
    expect(kill.code).toBe(5)
    expect(kill.stderr).toMatch(/quinn@example\.com neither owns nor runs/)
    const send = await c.cast(['send', id, 'yes', '--json'])
    expect(send.code).toBe(5)
    // Nothing changed on the machine it runs on: not killed, nothing typed, same state.
    const local = json(await a.cast(['sessions', '--json', '--all']))
    expect(local.sessions.find((x: {id: string}) => x.id === id)).toMatchObject({filing: null, reason: 'question', state: 'needs_input'})
    expect(fs.readFileSync(claudeTranscriptPath(a.h.home, a.project, s), 'utf8')).toBe(before)
    // Even the owner is held to the local safety rules where the session runs.
    const own = await a.cast(['own', id, 'quinn@example.com'])
    expect(own.code).toBe(0)
    await until('the handoff on the server', async () =>
      ((await serverRow(id))?.owners as string[] | undefined)?.includes('quinn@example.com'),
    )
    // (A dead session's open question is answered headless since the send rule changed; a send
    // whose --if no longer holds is refused where it runs.)
    const intoDialog = await c.cast(['send', id, 'yes', '--if', 'working', '--json'])
    expect(intoDialog.code).toBe(5)
    expect(intoDialog.stderr).toMatch(/is needs_input \(question\), not working: nothing sent/)
    expect(fs.readFileSync(claudeTranscriptPath(a.h.home, a.project, s), 'utf8')).toBe(before)
    // The server itself refuses rows for another machine's device, and a join claiming it.
    const pg = (await import('pg')).default
    const cUrl = JSON.parse(fs.readFileSync(path.join(c.h.castHome, 'config.json'), 'utf8')).team.url as string
    const client = new pg.Client({connectionString: cUrl})
    await client.connect()
    await expect(client.query(`UPDATE cast_team.sessions SET state = 'done' WHERE id = $1`, [id])).rejects.toThrow(/permission denied/)
    await expect(
      client.query(
        `INSERT INTO cast_team.events (device, epoch, local_seq, session_id, kind, payload) VALUES ('host-p', 'x', 1, $1, 'transition', '{}')`,
        [id],
      ),
    ).rejects.toThrow(/permission denied/)
    await client.end()
    expect((await serverRow(id))?.state).toBe('needs_input')
    const steal = await runCast(['team', 'join', cUrl, '--json'], {
      env: {...c.env, CAST_DEVICE: 'host-p', CAST_HOME: path.join(c.h.dir, 'other')},
    })
    expect(steal.code).toBe(5)
    expect(steal.stdout + steal.stderr).not.toContain(new URL(cUrl).password)
  })

  it('stream: cast sessions --team -w --json survives a server restart and dropped connections without a gap or a duplicate, and resumes with --since', async () => {
    const a = await machine('host-r', 'rae@example.com')
    const b = await machine('host-s', 'sam@example.com')
    const ids = [sid(3, 'c'), sid(4, 'd')]
    for (const s of ids) a.addSession(s, {settled: true})
    await a.startDaemon()
    await until('both sessions on the server', async () => (await serverRow(castId('claude_code', ids[1]!))) !== undefined)
    const from = Number((await cluster.sql('SELECT COALESCE(MAX(seq), 0) AS s FROM cast_team.events'))[0]!.s)
    const watch = startCast(['sessions', '--team', '-w', '--json', '--since', String(from)], b.env)
    const seen: number[] = []
    const turnAll = async (round: number): Promise<void> => {
      const before = (await localTransitions(a)).length
      for (const s of ids) appendTurn(a, s, `round ${round}`)
      // Each round moves each session (working, then settled): wait for it here and on the server.
      await until(
        `round ${round} published`,
        async () => {
          const local = await localTransitions(a)
          return local.length >= before + 4 && local.length === (await publishedTransitions('host-r')).length
        },
        60_000,
        100,
      )
    }

    for (let round = 1; round <= 6; round++) {
      if (round === 3) {
        await cluster.stop()
        for (const s of ids) appendTurn(a, s, 'while the server is down')
        await new Promise((r) => setTimeout(r, 1500))
        await cluster.start()
      }

      if (round === 5)
        await cluster.sql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename LIKE 'm\\_%' AND pid <> pg_backend_pid()`)
      await turnAll(round)
    }

    const expected = (
      await cluster.sql(`SELECT seq FROM cast_team.events WHERE kind = 'transition' AND seq > $1 ORDER BY seq`, [from])
    ).map((r) => Number(r.seq))
    expect(expected.length).toBeGreaterThanOrEqual(12)
    await until('the stream caught up', async () => {
      while (watch.lines.length > seen.length) seen.push(JSON.parse(watch.lines[seen.length]!).seq)
      return seen.length >= expected.length
    })
    expect(seen).toEqual(expected)
    const last = JSON.parse(watch.lines.at(-1)!)
    expect(last).toMatchObject({device: 'host-r', event: 'transition', runner: 'rae@example.com'})
    await watch.stop()
    // Every local transition reached the server once, in the machine's order.
    expect(await publishedTransitions('host-r')).toEqual(await localTransitions(a))
    // Resumed after the last seq it printed: only what came after, once.
    const resumed = startCast(['sessions', '--team', '-w', '--json', '--since', String(seen.at(-1))], b.env)
    appendTurn(a, ids[0]!, 'after the resume')
    const line = JSON.parse(await resumed.nextLine(60_000))
    expect(line.seq).toBeGreaterThan(seen.at(-1)!)
    await resumed.stop()
  })

  it('offline: a machine cut off from the server for an hour of its own time delivers every change once and in order when it is back', async () => {
    const l = await link(cluster.port)
    links.push(l)
    const c = await machine('host-t', 'tess@example.com', {port: l.port})
    const s = sid(5, 'e')
    c.addSession(s, {settled: true})
    const id = castId('claude_code', s)
    await c.startDaemon()
    await until('the session on the server', () => serverRow(id))
    l.cut()
    for (let i = 0; i < 3; i++) appendTurn(c, s, `offline ${i}`, Date.now() + 3600_000 + i * 60_000)
    expect((await c.cast(['own', id, 'ana@example.com'])).code).toBe(0)
    const status = await c.cast(['team', 'status', '--json'])
    expect(status.code).toBe(1)
    expect(json(status)).toMatchObject({reachable: false})
    await until('the changes queued', async () => json(await c.cast(['team', 'status', '--json'])).pending > 0)
    expect((await serverRow(id))?.owners).toEqual([])
    l.heal()
    await until(
      'the outbox drained',
      async () =>
        ((await serverRow(id))?.owners as string[]).includes('ana@example.com') &&
        (await localTransitions(c)).length === (await publishedTransitions('host-t')).length,
      60_000,
      100,
    )
    expect(await publishedTransitions('host-t')).toEqual(await localTransitions(c))
    const owners = await cluster.sql(`SELECT payload FROM cast_team.events WHERE device = 'host-t' AND kind = 'owners'`)
    expect(owners).toHaveLength(1)
    const st = json(await c.cast(['team', 'status', '--json']))
    expect(st).toMatchObject({pending: 0, reachable: true})
    expect(JSON.stringify(st)).not.toContain(
      new URL(JSON.parse(fs.readFileSync(path.join(c.h.castHome, 'config.json'), 'utf8')).team.url).password,
    )
  })

  it('clock skew: machines an hour apart are ordered by the server clock', async () => {
    const a = await machine('host-u', 'uma@example.com')
    const d = await machine('host-v', 'vic@example.com')
    const skew = -3600_000
    const sa = sid(6, 'f')
    const sd = sid(7, 'f')
    a.addSession(sa, {settled: true})
    // host-v's clock is an hour behind: its transcripts are stamped on it too, as the agent there writes them.
    d.addSession(sd, {at: Date.now() + skew, settled: true})
    const dFile = claudeTranscriptPath(d.h.home, d.project, sd)
    fs.utimesSync(dFile, new Date(Date.now() + skew), new Date(Date.now() + skew))
    await a.startDaemon()
    // Its clock (not a frozen CAST_NOW: real time goes on, an hour behind), file times with it.
    await d.startDaemon({
      CAST_TEST_CLOCK_OFFSET_MS: String(skew),
      NODE_OPTIONS: `--require ${path.join(import.meta.dirname, 'skewed-clock.cjs')}`,
    })
    await until(
      'both on the server',
      async () => (await serverRow(castId('claude_code', sa))) && (await serverRow(castId('claude_code', sd))),
    )
    const from = Number((await cluster.sql('SELECT COALESCE(MAX(seq), 0) AS s FROM cast_team.events'))[0]!.s)
    appendTurn(a, sa, 'first')
    await until(
      'a first',
      async () =>
        (
          await cluster.sql(`SELECT 1 FROM cast_team.events WHERE seq > $1 AND device = 'host-u' AND payload->>'to' = 'needs_input'`, [
            from,
          ])
        ).length > 0,
    )
    appendTurn(d, sd, 'second', Date.now() + skew)
    await until(
      'd second',
      async () =>
        (
          await cluster.sql(`SELECT 1 FROM cast_team.events WHERE seq > $1 AND device = 'host-v' AND payload->>'to' = 'needs_input'`, [
            from,
          ])
        ).length > 0,
    )
    const mid = Number((await cluster.sql('SELECT MAX(seq) AS s FROM cast_team.events'))[0]!.s)
    appendTurn(a, sa, 'third')
    await until(
      'a third',
      async () =>
        (await cluster.sql(`SELECT 1 FROM cast_team.events WHERE seq > $1 AND device = 'host-u' AND payload->>'to' = 'needs_input'`, [mid]))
          .length > 0,
    )
    // Both machines settled and published: the stream replays exactly what the server holds.
    for (const [m, dev] of [
      [a, 'host-u'],
      [d, 'host-v'],
    ] as const) {
      await until(
        `${dev} published`,
        async () => (await localTransitions(m)).length === (await publishedTransitions(dev)).length,
        60_000,
        100,
      )
    }

    const expected = (
      await cluster.sql(`SELECT seq FROM cast_team.events WHERE kind = 'transition' AND seq > $1 ORDER BY seq`, [from])
    ).map((r) => Number(r.seq))
    const watch = startCast(['sessions', '--team', '-w', '--json', '--since', String(from)], a.env)
    const lines: {device: string; ts: string; device_ts: string; seq: number}[] = []
    await until('the replay', async () => {
      while (watch.lines.length > lines.length) lines.push(JSON.parse(watch.lines[lines.length]!))
      return lines.length >= expected.length
    })
    expect(lines.map((x) => x.seq)).toEqual(expected)
    await watch.stop()
    const firstD = lines.findIndex((x) => x.device === 'host-v')
    expect(lines.slice(0, firstD).some((x) => x.device === 'host-u')).toBe(true)
    const ts = lines.map((x) => Date.parse(x.ts))
    expect([...ts].sort((p, q) => p - q)).toEqual(ts)
    // host-v's own clock says an hour earlier; the server's order and clock stand.
    expect(Date.parse(lines[firstD]!.ts) - Date.parse(lines[firstD]!.device_ts)).toBeGreaterThan(3000_000)
    // Its session's activity reads on the server's clock in a teammate's view.
    const team = json(await a.cast(['sessions', '--team', '--json']))
    const row = team.sessions.find((x: {id: string}) => x.id === castId('claude_code', sd))
    // (skew_ms is measured at each publish; the shift takes it off every time the row carries.)
    const skewMs = Number((await cluster.sql(`SELECT skew_ms FROM cast_team.machines WHERE device = 'host-v'`))[0]!.skew_ms)
    expect(skewMs).toBeLessThan(-3000_000)
    expect(Math.abs(Date.now() - Date.parse(row.last_activity_at))).toBeLessThan(600_000)
    expect(Math.abs(Date.now() - Date.parse(row.waiting_since))).toBeLessThan(600_000)
  })

  it('concurrent answers: two machines answer the same card at once; one wins, the other is told, one answer is recorded and published', async () => {
    const a = await machine('host-w', 'wes@example.com')
    const b = await machine('host-x', 'xan@example.com')
    const c = await machine('host-y', 'yul@example.com')
    const s = sid(8, 'g')
    a.addSession(s, {settled: true})
    const id = castId('claude_code', s)
    await a.startDaemon()
    await until('the session on the server', () => serverRow(id))
    expect((await a.cast(['own', id, 'xan@example.com'])).code).toBe(0)
    expect((await a.cast(['own', id, 'yul@example.com'])).code).toBe(0)
    const asked = await a.cast([
      'decide',
      'Which index?',
      '--option',
      'btree :: default',
      '--option',
      'brin :: small',
      '--session',
      id,
      '--json',
    ])
    expect(asked.code, asked.stderr).toBe(0)
    const card = json(asked).card?.id ?? json(asked).id
    await until('the card on the server', async () => ((await serverRow(id))?.summary as {decision?: {id: string}})?.decision?.id === card)
    const [rb, rc] = await Promise.all([
      b.cast(['decide', 'answer', card, '1', '--json']),
      c.cast(['decide', 'answer', card, '2', '--json']),
    ])
    expect([rb.code, rc.code].sort()).toEqual([0, 5])
    const loser = rb.code === 5 ? rb : rc
    expect(loser.stderr).toMatch(/already answered by (xan|yul)@example\.com/)
    const winner = rb.code === 0 ? 'xan@example.com' : 'yul@example.com'
    expect(json(rb.code === 0 ? rb : rc)).toMatchObject({device: 'host-w', status: 'delivered'})
    // One answer on the machine it runs on, by the winner, published once.
    await until(
      'the answer on the server',
      async () =>
        (await cluster.sql(`SELECT 1 FROM cast_team.events WHERE device = 'host-w' AND kind = 'decision' AND payload->>'op' = 'answered'`))
          .length > 0,
    )
    await new Promise((r) => setTimeout(r, 1500))
    const answered = await cluster.sql(
      `SELECT payload FROM cast_team.events WHERE device = 'host-w' AND kind = 'decision' AND payload->>'op' = 'answered'`,
    )
    expect(answered).toHaveLength(1)
    expect(answered[0]!.payload).toMatchObject({answer: rb.code === 0 ? 1 : 2, by: winner, card})
    const actions = await cluster.sql(`SELECT status FROM cast_team.actions WHERE session_id = $1 AND verb = 'answer' ORDER BY status`, [
      id,
    ])
    expect(actions.map((x) => x.status)).toEqual(['delivered', 'refused'])
  })
})

/** The agent (its transcript) takes one more turn: a prompt, then a reply that ends it. */
function appendTurn(m: Machine, sessionId: string, text: string, at = Date.now(), replyDelayMs = 400): void {
  const p = claudeTranscriptPath(m.h.home, m.project, sessionId)
  const base = {cwd: m.project, isSidechain: false, sessionId, userType: 'external', version: '2.1.100'}
  const u = `u-${at}-${Math.random().toString(36).slice(2)}`
  const lines = [
    {...base, message: {content: text, role: 'user'}, parentUuid: null, timestamp: new Date(at).toISOString(), type: 'user', uuid: u},
  ]
  fs.appendFileSync(p, lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
  const stamp = (): void => {
    // A machine whose clock is off writes its files' times on it too.
    if (at < Date.now() - 60_000) fs.utimesSync(p, new Date(at + 500), new Date(at + 500))
  }

  stamp()
  const later = (): void => {
    const reply = {
      ...base,
      message: {
        content: [{text: `Done: ${text}`, type: 'text'}],
        id: `msg-${u}`,
        model: 'claude-sonnet-4-5',
        role: 'assistant',
        stop_reason: 'end_turn',
        type: 'message',
      },
      parentUuid: u,
      timestamp: new Date(at + 500).toISOString(),
      type: 'assistant',
      uuid: `a-${u}`,
    }
    fs.appendFileSync(p, JSON.stringify(reply) + '\n')
    stamp()
  }

  if (replyDelayMs === 0) later()
  else setTimeout(later, replyDelayMs)
}
