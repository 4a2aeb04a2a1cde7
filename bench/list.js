/**
 * bench/list: `cast sessions --json --all` over a store of 10,000 sessions, against a bare Node
 * script that opens the same database with better-sqlite3, reads the same rows and writes the bytes cast
 * writes (bench/bare/list-stream.js; budget ≤ 1.5×);
 * and the absolute time over 500 sessions.
 *
 * The store is written by cast's own code from the build under test: generated Claude Code
 * transcripts go through the Claude Code adapter's parser and compose step, then Store.upsertFacts
 * and Store.reconcile, so the rows are exactly what cast writes (some sessions also get pins,
 * stashes, snoozes, verdicts and state declarations). Both contenders run as whole processes,
 * as a user runs them. HOME points at an empty folder, so the one-shot sync `cast sessions` does
 * first finds nothing to read: the figure is the listing itself.
 *
 * With --baseline DIR (a build from scripts/build-to, e.g. of the commit before a change), that
 * build lists the same store too, side by side in the same rounds: a before/after in one run.
 *
 *   node bench/list.js [--sessions 10000] [--big 100000] [--small 500] [--runs 7] [--bigRuns 3] [--baseline DIR]
 */
import fs from 'node:fs'
import path from 'node:path'

import {
  BARE,
  NOW,
  ROOT,
  USER,
  baseEnv,
  fmtInt,
  fmtMs,
  fmtRss,
  importDist,
  main,
  median,
  parseArgs,
  row,
  runCast,
  sideBySide,
  tempDir,
  timeRun,
} from './lib/common.js'
import {claudeSession, encodeCwd, rng, sizes, textPool} from './lib/gen.js'
import {profileTop} from './lib/profile.js'

const DEFAULTS = {sessions: 10_000, big: 100_000, small: 500, runs: 7, bigRuns: 3, seed: 11, baseline: ''}

/** Build CAST_HOME/cast.db with `n` sessions through cast's adapter and Store. */
export async function buildListStore(castHome, n, seed) {
  const {Store} = await importDist('core/store/store.js')
  const {claudeCode} = await importDist('adapters/claude-code/index.js')
  const {feedLine} = await importDist('core/ingest/jsonl-line.js')
  const r = rng(seed)
  const pool = textPool(r, 1 << 20)
  const store = new Store(castHome)
  const parser = claudeCode.jsonl
  const sz = sizes(r, n, n * 6000, 1.0, 800)
  const ends = ['settled', 'settled', 'settled', 'settled', 'question', 'tool', 'error', 'interrupt', 'prompt']
  const projects = ['api', 'web', 'parser', 'infra', 'docs', 'cli', 'billing', 'search']
  const ctx = {device: 'bench-host', now: NOW, runner: USER}
  let batch = []
  const flush = () => {
    store.tx(() => {
      for (const b of batch) {
        if (b.patch) store.patchRecords(b.id, b.patch)
      }
      store.reconcile(
        NOW,
        batch.map((b) => b.id),
      )
    })
    batch = []
  }
  for (let i = 0; i < n; i++) {
    const sessionId = r.uuid()
    const cwd = `/home/dev/src/${r.pick(projects)}`
    // Mostly recent, some older than the 7-day recency window (--all lists them too).
    const start = NOW - r.int(60_000, 14 * 86_400_000)
    const s = claudeSession(r, pool, {sessionId, cwd, start, bytes: sz[i], end: r.pick(ends)})
    const file = `/home/dev/.claude/projects/${encodeCwd(cwd)}/${sessionId}.jsonl`
    const match = {kind: 'jsonl', nativeId: sessionId, parentNativeId: null, role: 'transcript'}
    const state = parser.init(file, match)
    let off = 0
    for (const line of s.lines) {
      feedLine(parser, state, line, off)
      off += Buffer.byteLength(line) + 1
    }
    const contribs = parser.contributions(state, file, match)
    const facts = claudeCode.compose(sessionId, contribs)
    let id
    store.tx(() => {
      id = store.upsertFacts('claude_code', sessionId, facts, null, ctx).id
    })
    const x = r.next()
    let patch = null
    if (x < 0.02) patch = {pinned: true}
    else if (x < 0.05) patch = {filing: 'stashed', filedAt: NOW - 3_600_000}
    else if (x < 0.07) patch = {filing: 'snoozed', filedAt: NOW - 3_600_000, snoozedUntil: NOW + 86_400_000}
    else if (x < 0.09) patch = {verdict: 'done', verdictAt: NOW - 60_000}
    else if (x < 0.19)
      patch = {
        declaration: {
          status: r.pick(['done', 'dormant', 'blocked']),
          text: pool.prose(r.int(20, 200)),
          at: NOW - 120_000,
          turnIndex: facts.turnIndex,
          messages: facts.messages,
        },
      }
    batch.push({id, patch})
    if (batch.length >= 1000) flush()
  }
  flush()
  const count = store.countSessions()
  store.close()
  return count
}

function measure(label, n, runs, seed, log, baseline = '') {
  return async () => {
    const dir = tempDir(`list-${n}`)
    try {
      const castHome = path.join(dir, 'cast')
      const home = path.join(dir, 'home')
      fs.mkdirSync(home, {recursive: true})
      const t0 = performance.now()
      const count = await buildListStore(castHome, n, seed)
      log(`list: built a store of ${fmtInt(count)} sessions through cast's adapter + Store in ${fmtMs(performance.now() - t0)}`)
      const env = baseEnv({
        HOME: home,
        CAST_HOME: castHome,
        CAST_NOW: new Date(NOW).toISOString(),
        XDG_CONFIG_HOME: path.join(home, '.config'),
        XDG_DATA_HOME: path.join(home, '.local', 'share'),
      })
      const db = path.join(castHome, 'cast.db')
      const bareEnv = {...env, CAST_BENCH_ROOT: ROOT}
      const bareArgs = [path.join(BARE, 'list.js'), db]
      // Same rows on both sides? The streamed floor prints cast's own answer back (bench/bare/list-stream.js):
      // it must be the same bytes, as `cmp` compares them.
      const answer = path.join(dir, 'answer.json')
      const castOut = runCast(['sessions', '--json', '--all'], env, {capture: true}).stdout
      fs.writeFileSync(answer, castOut)
      const c = JSON.parse(castOut)
      const b = JSON.parse(timeRun(process.execPath, bareArgs, {env: bareEnv, capture: true}).stdout)
      log(`list: ${label}: cast lists ${fmtInt(c.sessions.length)} sessions, the bare read ${fmtInt(b.sessions.length)} rows`)
      const streamArgs = [path.join(BARE, 'list-stream.js'), db, answer]
      const floorOut = timeRun(process.execPath, streamArgs, {env: bareEnv, capture: true}).stdout
      if (floorOut !== castOut) throw new Error('the streamed floor does not print the bytes cast prints')
      log(`list: ${label}: the streamed floor prints cast's ${fmtInt(Buffer.byteLength(castOut))} bytes exactly`)
      const contenders = {
        cast: () => runCast(['sessions', '--json', '--all'], env, {rss: true}),
        bare: () => timeRun(process.execPath, bareArgs, {env: bareEnv, rss: true}),
        stream: () => timeRun(process.execPath, streamArgs, {env: bareEnv, rss: true}),
      }
      if (baseline) {
        // The baseline build over the same store (same schema): the same bytes first.
        const bin = path.join(path.resolve(baseline), 'bin', 'run.js')
        const got = timeRun(process.execPath, [bin, 'sessions', '--json', '--all'], {env, capture: true}).stdout
        if (got !== runCast(['sessions', '--json', '--all'], env, {capture: true}).stdout)
          throw new Error('the baseline build lists other bytes')
        contenders.baseline = () => timeRun(process.execPath, [bin, 'sessions', '--json', '--all'], {env, rss: true})
      }
      const times = sideBySide(contenders, {runs, warmup: 1})
      const castMs = median(times.cast)
      const bareMs = median(times.bare)
      const streamMs = median(times.stream)
      log(
        `list: ${label}: cast ${times.cast.map((t) => t.toFixed(0)).join(' ')} ms (${fmtRss(times.rss.cast)}); bare ${times.bare.map((t) => t.toFixed(0)).join(' ')} ms (${fmtRss(times.rss.bare)}); streamed bare ${times.stream.map((t) => t.toFixed(0)).join(' ')} ms (${fmtRss(times.rss.stream)})`,
      )
      const cpu = {cast: median(times.cpu.cast), bare: median(times.cpu.bare), stream: median(times.cpu.stream)}
      log(`list: ${label}: median CPU (user+sys) cast ${fmtMs(cpu.cast)}, bare ${fmtMs(cpu.bare)}, streamed ${fmtMs(cpu.stream)}`)
      if (baseline) {
        cpu.baseline = median(times.cpu.baseline)
        log(
          `list: ${label}: baseline (${baseline}) ${times.baseline.map((t) => t.toFixed(0)).join(' ')} ms (${fmtRss(times.rss.baseline)}): ${(median(times.baseline) / streamMs).toFixed(2)}× the streamed read (cpu ${(cpu.baseline / cpu.stream).toFixed(2)}×)`,
        )
      }
      // A miss records where the time went: one `--cpu-prof` run of the same command (bench/lib/profile.js).
      const profile = castMs / streamMs > 1.5 ? profileTop(['sessions', '--json', '--all'], env) : null
      return {
        castMs,
        bareMs,
        streamMs,
        cpu,
        profile,
        baselineMs: baseline ? median(times.baseline) : null,
        listed: c.sessions.length,
        rows: b.sessions.length,
        times,
        cpuTimes: times.cpu,
        rssKb: times.rss,
      }
    } finally {
      fs.rmSync(dir, {force: true, recursive: true})
    }
  }
}

export async function run(argv = [], log = console.error) {
  const o = parseArgs(argv, DEFAULTS)
  const rows = []
  const maxRss = (kbs) => Math.max(...kbs) / 1024
  for (const n of [o.sessions, o.big].filter((x) => x > 0)) {
    const m = await measure(`${fmtInt(n)} sessions`, n, n > o.sessions ? o.bigRuns : o.runs, o.seed, log, String(o.baseline))()
    const ratio = m.castMs / m.streamMs
    const base =
      m.baselineMs === null
        ? ''
        : `; baseline build ${fmtMs(m.baselineMs)} · ${fmtRss(m.rssKb.baseline)} (${(m.baselineMs / m.streamMs).toFixed(2)}×, cpu ${(m.cpu.baseline / m.cpu.stream).toFixed(2)}×)`
    rows.push(
      row(`sessions --json --all, ${fmtInt(n)} sessions (HOME empty: no files to sync)`, {
        cast: `${fmtMs(m.castMs)} · ${fmtRss(m.rssKb.cast)}`,
        floor: `streamed bare read ${fmtMs(m.streamMs)} · ${fmtRss(m.rssKb.stream)} (whole read ${fmtMs(m.bareMs)} · ${fmtRss(m.rssKb.bare)})${base}`,
        ratio,
        cpuRatio: m.cpu.cast / m.cpu.stream,
        budget: n >= 100_000 ? '≤ 1.50×, RSS ≤ 200 MB' : '≤ 1.50×',
        met: ratio <= 1.5 && (n < 100_000 || maxRss(m.rssKb.cast) <= 200),
        detail: m,
      }),
    )
  }
  if (o.small > 0) {
    const small = await measure(`${fmtInt(o.small)} sessions`, o.small, o.runs, o.seed + 1, log)()
    rows.push(
      row(`sessions --json --all, ${fmtInt(o.small)} sessions (absolute)`, {
        cast: fmtMs(small.castMs),
        floor: `bare better-sqlite3 read ${fmtMs(small.bareMs)}`,
        ratio: small.castMs / small.bareMs,
        cpuRatio: small.cpu.cast / small.cpu.bare,
        detail: small,
      }),
    )
  }
  return rows
}

await main(import.meta.url, run)
