/**
 * bench/firstanswer (issue 27 points 4 and 5): on the history of bench/dayone.js (10,000 files,
 * most of them old),
 *   - completeness: the first `cast sessions --json` with a fresh CAST_HOME against the inbox
 *     after the background pass has read every file: how many of the older sessions waiting on a
 *     question or a prompt (in the full inbox, inactive in the 7-day window) the first answer
 *     shows, with the same state and reason (budget: all of them), and whether the first answer
 *     says it is partial (`partial: true`, `unread_files`) while files are unread;
 *   - the first answer's time against a bare script that stats every file and reads + parses the
 *     recent ones (bench/bare/recent.js; budget ≤ 2.5×);
 *   - day two: `cast sessions --json` again with nothing changed and no daemon, against a bare stat
 *     of every file (bench/bare/stat.js; budget ≤ 2×).
 * A missed budget records the profile of one `node --cpu-prof` run of the same command
 * (bench/lib/profile.js) in its row, for the summary (bench/lib/budgets.js).
 *
 *   node bench/firstanswer.js [--mb 1900] [--files 10000] [--codex 0.2] [--ageDays 140] [--runs 3] [--noopRuns 7]
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {historyCorpus} from './dayone.js'
import {
  BARE,
  NOW,
  baseEnv,
  cpuRatioOf,
  dirBytes,
  fmtInt,
  fmtMs,
  fmtRss,
  checkBuilt,
  median,
  parseArgs,
  printTable,
  requireFromRoot,
  row,
  runCast,
  sideBySide,
  sleep,
  tempDir,
  timeRun,
} from './lib/common.js'
import {printBudgets} from './lib/budgets.js'
import {profileTop} from './lib/profile.js'

const DEFAULTS = {mb: 1900, files: 10_000, codex: 0.2, ageDays: 140, runs: 3, noopRuns: 7, seed: 13}
const WINDOW_MS = 7 * 86_400_000
const FIRST_BUDGET = 2.5
const DAY_TWO_BUDGET = 2

/** Wait until no background pass holds the store's backfill lease (ms waited). */
function waitBackfill(castHome) {
  const Database = requireFromRoot('better-sqlite3')
  const t0 = performance.now()
  for (;;) {
    let held = false
    try {
      const db = new Database(path.join(castHome, 'cast.db'), {readonly: true, fileMustExist: true, timeout: 5000})
      try {
        const r = db.prepare(`SELECT pid FROM leases WHERE name = 'backfill'`).get()
        held = r !== undefined && alive(r.pid)
      } finally {
        db.close()
      }
    } catch {
      held = false
    }
    // The pass is spawned as the answer exits: give it a moment to take the lease.
    if (!held && performance.now() - t0 > 1500) return performance.now() - t0
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100)
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const load = () => os.loadavg()[0]

export async function run(argv = [], log = console.error) {
  const o = parseArgs(argv, DEFAULTS)
  const corpus = historyCorpus(o, log)
  const home = path.join(corpus.dir, 'home')
  const roots = [path.join(home, '.claude', 'projects'), path.join(home, '.codex', 'sessions')]
  const onDisk = dirBytes(home)
  const since = NOW - WINDOW_MS
  const work = tempDir('firstanswer')
  const castHome = path.join(work, 'cast')
  const env = baseEnv({
    HOME: home,
    CAST_HOME: castHome,
    CAST_NOW: new Date(NOW).toISOString(),
    XDG_CONFIG_HOME: path.join(work, 'config'),
    XDG_DATA_HOME: path.join(work, 'data'),
  })
  const fresh = () => fs.rmSync(castHome, {force: true, recursive: true})
  const rows = []
  try {
    // Completeness: the first answer against the inbox once every file is read.
    fresh()
    const first = JSON.parse(runCast(['sessions', '--json'], env, {capture: true}).stdout)
    const backfillMs = waitBackfill(castHome)
    const full = JSON.parse(runCast(['sessions', '--json'], env, {capture: true}).stdout)
    const older = (s) => !s.last_activity_at || Date.parse(s.last_activity_at) < since
    const firstById = new Map(first.sessions.map((s) => [s.id, s]))
    const waiting = full.sessions.filter(older)
    const shown = waiting.filter((s) => firstById.get(s.id)?.state === s.state && firstById.get(s.id)?.reason === s.reason)
    const missing = full.sessions.filter((s) => !firstById.has(s.id))
    const says = first.partial === true && Number(first.unread_files) > 0
    log(
      `firstanswer: first answer ${fmtInt(first.sessions.length)} sessions (partial: ${first.partial ?? false}, unread_files: ${first.unread_files ?? 0}); after the background pass (${fmtMs(backfillMs)}) ${fmtInt(full.sessions.length)}, of which ${fmtInt(waiting.length)} older sessions waiting; the first answer shows ${fmtInt(shown.length)} of them; inbox rows missing from it: ${missing.length}`,
    )
    rows.push(
      row(`first answer completeness: older sessions waiting on a question or prompt, ${fmtInt(corpus.files)} files`, {
        cast: `${fmtInt(shown.length)} of ${fmtInt(waiting.length)} shown; says partial: ${says ? 'yes' : 'no'} (${fmtInt(first.unread_files ?? 0)} files unread)`,
        floor: `full index after the background pass: ${fmtInt(waiting.length)}`,
        ratio: waiting.length > 0 ? shown.length / waiting.length : 1,
        budget: 'all shown, partial said',
        met: shown.length === waiting.length && missing.length === 0 && says,
        detail: {
          first: first.sessions.length,
          full: full.sessions.length,
          waiting: waiting.length,
          shown: shown.length,
          missing: missing.length,
          unread: first.unread_files ?? 0,
          backfillMs,
        },
      }),
    )

    // The first answer's time: a fresh CAST_HOME each round, the background pass waited for.
    const l1 = load()
    const firstTimes = sideBySide(
      {
        cast: () => {
          fresh()
          const r = runCast(['sessions', '--json'], env, {rss: true})
          waitBackfill(castHome)
          return r
        },
        floor: () => timeRun(process.execPath, [path.join(BARE, 'recent.js'), String(since), ...roots], {env, rss: true}),
      },
      {runs: o.runs, warmup: 1},
    )
    log(
      `firstanswer: first answer cast ${firstTimes.cast.map((t) => t.toFixed(0)).join(' ')} ms; stat all + parse recent ${firstTimes.floor.map((t) => t.toFixed(0)).join(' ')} ms; CPU ${fmtMs(median(firstTimes.cpu.cast))} vs ${fmtMs(median(firstTimes.cpu.floor))}; load ${l1.toFixed(1)}→${load().toFixed(1)}`,
    )
    const c1 = median(firstTimes.cast)
    const f1 = median(firstTimes.floor)
    let profile = null
    if (c1 / f1 > FIRST_BUDGET) {
      fresh()
      profile = profileTop(['sessions', '--json'], env)
      waitBackfill(castHome)
    }
    rows.push(
      row(
        `first answer, complete (older asks from the files' tails), ${(onDisk.bytes / 2 ** 30).toFixed(1)} GB / ${fmtInt(corpus.files)} files`,
        {
          cast: `${fmtMs(c1)} · ${fmtRss(firstTimes.rss.cast)}`,
          floor: `stat all + parse recent ${fmtMs(f1)} · ${fmtRss(firstTimes.rss.floor)}`,
          ratio: c1 / f1,
          cpuRatio: cpuRatioOf(firstTimes, 'cast', 'floor'),
          budget: `≤ ${FIRST_BUDGET.toFixed(2)}×`,
          met: c1 / f1 <= FIRST_BUDGET,
          detail: {times: firstTimes, cpu: firstTimes.cpu, rssKb: firstTimes.rss, loadavg: [l1, load()], profile},
        },
      ),
    )

    // Day two: the store is complete (the background pass is done), nothing changed, no daemon.
    const l2 = load()
    const dayTwo = sideBySide(
      {
        cast: () => runCast(['sessions', '--json'], env, {rss: true}),
        floor: () => timeRun(process.execPath, [path.join(BARE, 'stat.js'), ...roots], {env, rss: true}),
      },
      {runs: o.noopRuns, warmup: 1},
    )
    log(
      `firstanswer: day two cast ${dayTwo.cast.map((t) => t.toFixed(0)).join(' ')} ms; bare stat ${dayTwo.floor.map((t) => t.toFixed(0)).join(' ')} ms; CPU ${fmtMs(median(dayTwo.cpu.cast))} vs ${fmtMs(median(dayTwo.cpu.floor))}; load ${l2.toFixed(1)}→${load().toFixed(1)}`,
    )
    const c2 = median(dayTwo.cast)
    const f2 = median(dayTwo.floor)
    rows.push(
      row(`day two: no-op sessions --json, ${fmtInt(corpus.files)} unchanged files, no daemon (firstanswer)`, {
        cast: `${fmtMs(c2)} · ${fmtRss(dayTwo.rss.cast)}`,
        floor: `bare stat of every file ${fmtMs(f2)} · ${fmtRss(dayTwo.rss.floor)}`,
        ratio: c2 / f2,
        cpuRatio: cpuRatioOf(dayTwo, 'cast', 'floor'),
        budget: `≤ ${DAY_TWO_BUDGET.toFixed(2)}×`,
        met: c2 / f2 <= DAY_TWO_BUDGET,
        detail: {
          times: dayTwo,
          cpu: dayTwo.cpu,
          rssKb: dayTwo.rss,
          loadavg: [l2, load()],
          profile: c2 / f2 > DAY_TWO_BUDGET ? profileTop(['sessions', '--json'], env) : null,
        },
      }),
    )
    return rows
  } finally {
    await sleep(0)
    fs.rmSync(work, {force: true, recursive: true})
  }
}

// Run on its own: the table, then the issue-27 budget lines with the profile under a miss.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  checkBuilt()
  const rows = await run(process.argv.slice(2), (m) => process.stderr.write(m + '\n'))
  printTable(rows)
  printBudgets(rows)
}
