/**
 * bench/team (issue 17 point 7): one real PostgreSQL as the team store of 50 simulated machines ×
 * 200 sessions each (10,000 sessions), every machine a store built by cast's own adapter + Store
 * (bench/list.js), its own PostgreSQL role, device and outbox.
 *
 *  1. join: 50 × `cast team join` (whole processes, --join-jobs at a time): each publishes its 200
 *     summaries. Rows/s over the wall of all joins.
 *  2. publish, batched: one transition per session queued in every machine's outbox (the local
 *     triggers, as the ingester writes them), then the 50 publishers (cast's publisher, in this
 *     process, one pool each) drain them concurrently: outbox rows/s end to end (read from the
 *     outbox, summaries upserted, events inserted under the seq lock, machine row, commit, ack).
 *  3. publish, one change at a time: each machine publishes --rounds single changes in a row, all
 *     50 at once (a daemon's 500 ms pass on a busy team): commits/s, p50/p99 per publish.
 *     Floors for 1–3, measured in the same run: bare `pg` inserts of the same rows (same batching,
 *     same concurrency) into a plain table without indexes, policies or the seq lock.
 *  4. team views from one machine: `cast sessions --team --json` and `cast feed -g --json`
 *     (whole processes) against the full team, beside a bare `pg` read of every summary
 *     (bench/team/bare-read.js) and `node -e 0`.
 * Server figures: rows and table sizes, pg_stat_database deltas and the server's CPU per phase
 * (postmaster + backends, /proc), the top statements (pg_stat_statements), load average.
 *
 *   node bench/team/index.js [--machines 50] [--sessions 200] [--rounds 20] [--runs 5] [--join-jobs 4]
 */
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import {
  BIN,
  NOW,
  REPO,
  ROOT,
  baseEnv,
  fmtInt,
  fmtMs,
  importDist,
  machine,
  main,
  markdownTable,
  median,
  parseArgs,
  percentile,
  requireFromRoot,
  row,
  runCast,
  sideBySide,
  tempDir,
  timeRun,
} from '../lib/common.js'
import {buildListStore} from '../list.js'
import {startCluster} from './pg.js'

const DEFAULTS = {machines: 50, sessions: 200, rounds: 20, runs: 5, 'join-jobs': 4, seed: 1700}
const HERE = path.join(REPO, 'bench', 'team')

function spawnCast(args, env) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const c = spawn(process.execPath, [BIN, ...args], {env, stdio: ['ignore', 'pipe', 'pipe']})
    let out = ''
    let err = ''
    c.stdout.on('data', (d) => (out += d))
    c.stderr.on('data', (d) => (err += d))
    c.on('close', (code) =>
      code === 0 ? resolve({ms: performance.now() - t0, stdout: out}) : reject(new Error(`cast ${args.join(' ')}: ${code} ${err}`)),
    )
  })
}

async function pooled(items, jobs, fn) {
  const out = new Array(items.length)
  let next = 0
  await Promise.all(
    Array.from({length: Math.min(jobs, items.length)}, async () => {
      while (next < items.length) {
        const i = next++
        out[i] = await fn(items[i], i)
      }
    }),
  )
  return out
}

const groupBy = (xs, key) => {
  const m = {}
  for (const x of xs) (m[key(x)] ??= []).push(x)
  return m
}

const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')

export async function run(argv = [], log = console.error) {
  const o = parseArgs(argv, DEFAULTS)
  const pg = requireFromRoot('pg')
  const {Store} = await importDist('core/store/store.js')
  const {publishAll, publishBatch} = await importDist('core/store/team/publisher.js')
  const {openPool} = await importDist('core/store/team/client.js')
  const {teamJoin} = await importDist('core/store/outbox.js')
  const dir = tempDir('team')
  const loadBefore = load()
  log(`team: load average ${loadBefore}`)
  const cluster = await startCluster({maxConnections: Math.max(300, o.machines * 3 + 20)})
  const pools = []
  try {
    log(`team: PostgreSQL ${cluster.version} on port ${cluster.port}${cluster.statements ? ', pg_stat_statements on' : ''}`)
    const stat = async () => {
      const [d] = await cluster.sql(
        `SELECT xact_commit, tup_inserted, tup_updated, tup_deleted, blks_hit, blks_read FROM pg_stat_database WHERE datname = 'postgres'`,
      )
      return {...Object.fromEntries(Object.entries(d).map(([k, v]) => [k, Number(v)])), cpu_ms: cluster.cpuMs()}
    }
    const delta = (a, b) => Object.fromEntries(Object.keys(b).map((k) => [k, b[k] === null || a[k] === null ? null : b[k] - a[k]]))

    // The admin's one-time schema, then one role per machine.
    const adminHome = path.join(dir, 'admin')
    fs.mkdirSync(adminHome)
    runCast(
      ['team', 'join', cluster.adminUrl, '--json'],
      baseEnv({
        CAST_DEVICE: 'admin-setup',
        CAST_HOME: path.join(adminHome, 'cast'),
        HOME: adminHome,
        XDG_CONFIG_HOME: path.join(adminHome, '.config'),
      }),
    )
    await cluster.sql(`DELETE FROM cast_team.machines WHERE device = 'admin-setup'`)
    const ms = []
    const t0 = performance.now()
    for (let i = 0; i < o.machines; i++) {
      const name = `m${String(i).padStart(3, '0')}`
      const pw = `pw-${name}-${Math.random().toString(36).slice(2)}`
      await cluster.sql(`CREATE ROLE ${name} LOGIN PASSWORD '${pw}' IN ROLE cast_member`)
      // The admin binds each role to its person (cast team admit); the server writes that identity.
      await cluster.sql('SELECT cast_team.admit_member($1, $2)', [name, `${name}@example.com`])
      const home = path.join(dir, name)
      const castHome = path.join(home, 'cast')
      fs.mkdirSync(home, {recursive: true})
      await buildListStore(castHome, o.sessions, o.seed + i)
      const env = baseEnv({
        CAST_DEVICE: name,
        CAST_HOME: castHome,
        CAST_USER: `${name}@example.com`,
        HOME: home,
        XDG_CONFIG_HOME: path.join(home, '.config'),
        XDG_DATA_HOME: path.join(home, '.local', 'share'),
      })
      ms.push({castHome, env, name, url: cluster.url(name, pw)})
    }
    const total = o.machines * o.sessions
    log(`team: ${o.machines} machines × ${o.sessions} sessions built through cast's adapter + Store in ${fmtMs(performance.now() - t0)}`)

    // 1. join
    await cluster.sql(cluster.statements ? 'SELECT pg_stat_statements_reset()' : 'SELECT 1')
    let s0 = await stat()
    let w0 = performance.now()
    const joins = await pooled(ms, o['join-jobs'], (m) => spawnCast(['team', 'join', m.url, '--name', 'bench', '--json'], m.env))
    const joinWall = performance.now() - w0
    const joinStat = delta(s0, await stat())
    const published = joins.reduce((n, j) => n + JSON.parse(j.stdout).published, 0)
    const [{n: serverSessions}] = await cluster.sql('SELECT count(*)::int AS n FROM cast_team.sessions')
    if (serverSessions !== total || published !== total)
      throw new Error(`join published ${published}, server has ${serverSessions}, expected ${total}`)
    log(
      `team: join: ${fmtInt(published)} summaries from ${o.machines} machines in ${fmtMs(joinWall)} (${o['join-jobs']} joins at a time; one join ${fmtMs(median(joins.map((j) => j.ms)))} median)`,
    )

    // Floor for 1: the same summaries, inserted bare (batches of 500, the same concurrency).
    await cluster.sql(
      `CREATE SCHEMA floor; CREATE TABLE floor.sessions (id text, device text, summary jsonb); CREATE TABLE floor.events (device text, local_seq bigint, session_id text, kind text, payload jsonb)`,
    )
    const sums = await cluster.sql('SELECT id, device, summary FROM cast_team.sessions ORDER BY device, id')
    const bare = new pg.Pool({connectionString: cluster.adminUrl, max: Math.max(o['join-jobs'], o.machines)})
    pools.push(bare)
    const byDevice = groupBy(sums, (r) => r.device)
    w0 = performance.now()
    await pooled(Object.values(byDevice), o['join-jobs'], async (rows) => {
      for (let i = 0; i < rows.length; i += 500) {
        await bare.query(
          `INSERT INTO floor.sessions SELECT * FROM jsonb_to_recordset($1::jsonb) AS t(id text, device text, summary jsonb)`,
          [JSON.stringify(rows.slice(i, i + 500))],
        )
      }
    })
    const joinFloor = performance.now() - w0

    // 2. publish, batched: one transition per session in every outbox, 50 publishers at once.
    const stores = ms.map((m) => new Store(m.castHome))
    for (const [i, st] of stores.entries()) {
      st.tx(() =>
        st
          .q(
            `INSERT INTO transitions (ts, session_id, event, from_state, to_state, reason, bucket, from_bucket)
              SELECT t.ts + 1000, t.session_id, t.event, t.to_state, t.to_state, t.reason, t.bucket, t.bucket
                FROM transitions t WHERE t.seq IN (SELECT MAX(seq) FROM transitions GROUP BY session_id)`,
          )
          .run(),
      )
      ms[i].epoch = teamJoin(st).epoch
    }
    const queued = stores.reduce((n, st) => n + Number(st.q('SELECT count(*) AS n FROM outbox').get().n), 0)
    for (const m of ms) pools.push((m.pool = await openPool(m.url, {max: 1})))
    s0 = await stat()
    w0 = performance.now()
    const pub = await Promise.all(ms.map((m, i) => publishAll(stores[i], m.pool, {device: m.name, epoch: m.epoch})))
    const pubWall = performance.now() - w0
    const pubStat = delta(s0, await stat())
    const sent = pub.reduce((n, p) => n + p.sent, 0)
    const [{n: events}] = await cluster.sql(`SELECT count(*)::int AS n FROM cast_team.events WHERE kind = 'transition'`)
    if (sent !== queued || events < queued) throw new Error(`publish sent ${sent} of ${queued}; server has ${events} transitions`)
    log(`team: publish: ${fmtInt(sent)} outbox rows from ${o.machines} machines at once in ${fmtMs(pubWall)}`)
    const evRows = await cluster.sql(`SELECT device, local_seq, session_id, kind, payload FROM cast_team.events`)
    const evBy = Object.values(groupBy(evRows, (r) => r.device))
    w0 = performance.now()
    await Promise.all(
      evBy.map((rows) =>
        bare.query(
          `INSERT INTO floor.events SELECT * FROM jsonb_to_recordset($1::jsonb) AS t(device text, local_seq bigint, session_id text, kind text, payload jsonb)`,
          [JSON.stringify(rows)],
        ),
      ),
    )
    const pubFloor = performance.now() - w0

    // 3. one change at a time, every machine at once.
    const one = []
    s0 = await stat()
    w0 = performance.now()
    await Promise.all(
      ms.map(async (m, i) => {
        const st = stores[i]
        const ids = st
          .q('SELECT id FROM sessions ORDER BY id LIMIT ?')
          .all(o.rounds)
          .map((r) => r.id)
        for (let k = 0; k < o.rounds; k++) {
          st.q(
            `INSERT INTO transitions (ts, session_id, event, from_state, to_state, reason, bucket, from_bucket)
                SELECT ts + 1000, session_id, event, to_state, to_state, reason, bucket, bucket FROM transitions WHERE session_id = ? ORDER BY seq DESC LIMIT 1`,
          ).run(ids[k % ids.length])
          const t = performance.now()
          await publishBatch(st, m.pool, {device: m.name, epoch: m.epoch})
          one.push(performance.now() - t)
        }
      }),
    )
    const oneWall = performance.now() - w0
    const oneStat = delta(s0, await stat())
    const sample = evRows.slice(0, o.machines * o.rounds)
    const oneFloor = []
    w0 = performance.now()
    await Promise.all(
      Array.from({length: o.machines}, async (_, i) => {
        const c = await bare.connect()
        try {
          for (let k = 0; k < o.rounds; k++) {
            const r = sample[(i * o.rounds + k) % sample.length]
            const t = performance.now()
            await c.query(`INSERT INTO floor.events VALUES ($1, $2, $3, $4, $5)`, [r.device, r.local_seq, r.session_id, r.kind, r.payload])
            oneFloor.push(performance.now() - t)
          }
        } finally {
          c.release()
        }
      }),
    )
    const oneFloorWall = performance.now() - w0
    const commits = o.machines * o.rounds
    log(
      `team: one at a time: ${commits} publishes in ${fmtMs(oneWall)}; p50 ${fmtMs(percentile(one, 50))}, p99 ${fmtMs(percentile(one, 99))}`,
    )
    for (const st of stores) st.close()

    // 4. team views from machine 0 (its clock at the corpus's NOW, as bench/list does).
    const viewer = {...ms[0].env, CAST_NOW: new Date(NOW).toISOString()}
    const shown = JSON.parse(runCast(['sessions', '--team', '--json'], viewer, {capture: true}).stdout)
    const fed = JSON.parse(runCast(['feed', '-g', '--json', '--limit', String(total)], viewer, {capture: true}).stdout)
    const count = (x) => (Array.isArray(x) ? x.length : (x.sessions ?? x.rows ?? x.items ?? []).length)
    const bareEnv = {...viewer, CAST_BENCH_ROOT: ROOT}
    // Machine 0's own store without the team's config: the same command on local rows alone.
    const soloHome = path.join(dir, 'solo')
    fs.mkdirSync(soloHome)
    for (const f of fs.readdirSync(ms[0].castHome).filter((f) => f.startsWith('cast.db')))
      fs.copyFileSync(path.join(ms[0].castHome, f), path.join(soloHome, f))
    const localOnly = {...viewer, CAST_HOME: soloHome}
    const views = sideBySide(
      {
        sessions: () => runCast(['sessions', '--team', '--json'], viewer),
        feed: () => runCast(['feed', '-g', '--json'], viewer),
        local: () => runCast(['sessions', '--json'], localOnly),
        bare: () => timeRun(process.execPath, [path.join(HERE, 'bare-read.js'), ms[0].url], {env: bareEnv}),
        node: () => timeRun(process.execPath, ['-e', '0'], {env: viewer}),
      },
      {runs: o.runs, warmup: 1},
    )
    const v = Object.fromEntries(Object.keys(views).map((k) => [k, median(views[k])]))
    log(
      `team: views: sessions --team ${fmtMs(v.sessions)} (${count(shown)} rows shown), feed -g ${fmtMs(v.feed)} (${count(fed)} rows), local sessions --json ${fmtMs(v.local)}, bare read ${fmtMs(v.bare)}, node -e 0 ${fmtMs(v.node)}`,
    )

    // Server: rows, sizes, statements.
    const tables = await cluster.sql(`SELECT c.relname AS table, c.reltuples::bigint AS approx_rows, pg_total_relation_size(c.oid) AS bytes
                                        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'cast_team' AND c.relkind = 'r' ORDER BY bytes DESC`)
    for (const t of tables) t.rows = (await cluster.sql(`SELECT count(*)::int AS n FROM cast_team.${t.table}`))[0].n
    const top = cluster.statements
      ? await cluster.sql(`SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS query, calls::int, round(total_exec_time::numeric, 1)::float AS total_ms, round(mean_exec_time::numeric, 2)::float AS mean_ms
                             FROM pg_stat_statements WHERE query ILIKE '%cast_team%' ORDER BY total_exec_time DESC LIMIT 6`)
      : []
    const dbBytes = Number((await cluster.sql(`SELECT pg_database_size('postgres') AS b`))[0].b)
    const mb = (b) => `${(b / 2 ** 20).toFixed(1)} MB`
    for (const t of tables) log(`team: table cast_team.${t.table}: ${fmtInt(t.rows)} rows, ${mb(Number(t.bytes))}`)
    for (const q of top) log(`team: statement ${q.calls} calls, ${q.total_ms} ms total, ${q.mean_ms} ms mean: ${q.query}`)
    const loadAfter = load()
    log(`team: load average ${loadAfter}`)
    const sessBytes = Number(tables.find((t) => t.table === 'sessions')?.bytes ?? 0)
    const evBytes = Number(tables.find((t) => t.table === 'events')?.bytes ?? 0)
    const [{n: evCount}] = await cluster.sql('SELECT count(*)::int AS n FROM cast_team.events')
    const cpu = (s, wall) =>
      s.cpu_ms === null ? '' : `; server CPU ${fmtMs(s.cpu_ms)} (${((100 * s.cpu_ms) / wall).toFixed(0)}% of one core)`
    const rps = (n, msv) => `${fmtInt(Math.round((n * 1000) / msv))} rows/s`
    const rows = [
      row(`team join: ${o.machines} machines × ${o.sessions} summaries (cast team join, ${o['join-jobs']} at a time)`, {
        cast: `${rps(published, joinWall)} (${fmtMs(joinWall)})`,
        detail: {joinWall, joinFloor, oneJoinMedianMs: median(joins.map((j) => j.ms)), server: joinStat},
        floor: `bare pg insert ${rps(published, joinFloor)} (${fmtMs(joinFloor)})${cpu(joinStat, joinWall)}`,
        ratio: joinWall / joinFloor,
      }),
      row(`team publish, batched: ${fmtInt(sent)} outbox rows, ${o.machines} machines at once (end to end)`, {
        cast: `${rps(sent, pubWall)} (${fmtMs(pubWall)})`,
        detail: {pubWall, pubFloor, batches: pub.reduce((n, p) => n + p.batches, 0), server: pubStat},
        floor: `bare pg insert ${rps(sent, pubFloor)} (${fmtMs(pubFloor)})${cpu(pubStat, pubWall)}`,
        ratio: pubWall / pubFloor,
      }),
      row(`team publish, one change at a time: ${o.machines} machines × ${o.rounds} (p50 / p99 per publish)`, {
        cast: `${fmtInt(Math.round((commits * 1000) / oneWall))} commits/s; ${fmtMs(percentile(one, 50))} / ${fmtMs(percentile(one, 99))}`,
        detail: {
          oneWall,
          oneFloorWall,
          p50: percentile(one, 50),
          p99: percentile(one, 99),
          floorP50: percentile(oneFloor, 50),
          floorP99: percentile(oneFloor, 99),
          server: oneStat,
        },
        floor: `bare pg insert ${fmtInt(Math.round((commits * 1000) / oneFloorWall))}/s; ${fmtMs(percentile(oneFloor, 50))} / ${fmtMs(percentile(oneFloor, 99))}${cpu(oneStat, oneWall)}`,
        ratio: oneWall / oneFloorWall,
      }),
      row(`cast sessions --team --json, ${fmtInt(total)} team sessions (whole process)`, {
        cast: fmtMs(v.sessions),
        detail: {times: views.sessions, shown: count(shown)},
        floor: `bare pg read ${fmtMs(v.bare)}; this machine's own cast sessions --json ${fmtMs(v.local)}; node -e 0 ${fmtMs(v.node)}`,
        ratio: v.sessions / v.bare,
      }),
      row(`cast feed -g --json, ${fmtInt(total)} team sessions (whole process)`, {
        cast: fmtMs(v.feed),
        detail: {times: views.feed, shown: count(fed)},
        floor: `bare pg read ${fmtMs(v.bare)}; node -e 0 ${fmtMs(v.node)}`,
        ratio: v.feed / v.bare,
      }),
      row(`server after the run: rows and size`, {
        cast: `${fmtInt(serverSessions)} sessions ${mb(sessBytes)}; ${fmtInt(evCount)} events ${mb(evBytes)}`,
        detail: {tables, dbBytes, statements: top},
        floor: `database ${mb(dbBytes)}; ${(sessBytes / serverSessions / 1024).toFixed(1)} KiB per session, ${(evBytes / evCount / 1024).toFixed(2)} KiB per event`,
      }),
    ]
    const results = {
      at: new Date().toISOString(),
      machine: machine(),
      postgres: cluster.version,
      options: o,
      loadBefore,
      loadAfter,
      rows,
      markdown: markdownTable(rows),
    }
    fs.writeFileSync(path.join(HERE, 'results.json'), JSON.stringify(results, null, 2) + '\n')
    log(`team: wrote bench/team/results.json`)
    return rows
  } finally {
    for (const p of pools) await p.end().catch(() => {})
    await cluster.destroy().catch(() => {})
    fs.rmSync(dir, {force: true, recursive: true})
  }
}

await main(import.meta.url, run)
