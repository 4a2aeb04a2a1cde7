/**
 * bench/status: `cast status` (the one line a tmux status bar runs every few seconds) from a warm
 * store, as a whole process the way tmux runs it. Budget (docs/contract.md, DESIGN §7): ≤ 1.5×
 * `node -e 0` with or without a daemon. Measured side by side in the same run:
 * - cast status answered from status.json (the store unchanged since the last call: a status bar's
 *   usual poll), and cast status counting (status.json removed before each run: the first poll
 *   after a change);
 * - the floors: `node -e 0` (Node's own start), a bare better-sqlite3 read of the same rows
 *   (bench/bare/status.js), and `cat status.line` (what a status line reading the daemon's file costs).
 * The store is the one bench/list.js builds (cast's adapter and Store).
 *
 * And without a daemon on a generated history (bench/dayone.js's corpus, indexed by cast): the
 * store a user's 10,000 transcript files make, not only the generated list store. A miss records
 * the profile of a counting run and of a cached one (bench/lib/profile.js).
 *
 *   node bench/status.js [--sessions 500] [--big 10000] [--runs 15] [--interval 5]
 *                        [--historyFiles 10000] [--historyMb 1900]   (--historyFiles 0: skipped)
 */
import fs from 'node:fs'
import path from 'node:path'

import {BARE, NOW, ROOT, baseEnv, fmtInt, fmtMs, main, median, parseArgs, row, runCast, sideBySide, tempDir, timeRun} from './lib/common.js'
import {historyCorpus} from './dayone.js'
import {profileTop} from './lib/profile.js'
import {buildListStore} from './list.js'

const DEFAULTS = {sessions: 500, big: 10_000, runs: 15, seed: 23, interval: 5, historyFiles: 10_000, historyMb: 1900}
const BUDGET_RATIO = 1.5
/** A status line polling this often must cost under this share of a core (README "Status bar"). */
const LINE_BUDGET_CORE = 0.005

async function measure(n, runs, seed, log, history = null) {
  const dir = tempDir(`status-${n}`)
  try {
    const castHome = path.join(dir, 'cast')
    let home = path.join(dir, 'home')
    let count
    if (history) {
      // A generated history (bench/dayone.js's corpus), indexed by cast itself, as a user's store is.
      home = path.join(history.dir, 'home')
      const env = baseEnv({HOME: home, CAST_HOME: castHome, CAST_NOW: new Date(NOW).toISOString()})
      log(`status: indexing the ${fmtInt(history.files)}-file history …`)
      count = JSON.parse(runCast(['sessions', '--json', '--all'], env, {capture: true}).stdout).sessions.length
    } else {
      fs.mkdirSync(home, {recursive: true})
      count = await buildListStore(castHome, n, seed)
    }
    const env = baseEnv({
      HOME: home,
      CAST_HOME: castHome,
      CAST_NOW: new Date(NOW).toISOString(),
      XDG_CONFIG_HOME: path.join(home, '.config'),
      XDG_DATA_HOME: path.join(home, '.local', 'share'),
    })
    const db = path.join(castHome, 'cast.db')
    const cache = path.join(castHome, 'status.json')
    const lineFile = path.join(castHome, 'status.line')
    const bareEnv = {...env, CAST_BENCH_ROOT: ROOT}
    const line = runCast(['status'], env, {capture: true}).stdout.trim()
    fs.writeFileSync(lineFile, line + '\n')
    log(`status: ${fmtInt(count)} sessions: cast status says "${line}"`)
    const times = sideBySide(
      {
        cached: () => runCast(['status'], env),
        counting: () => runCast(['status'], env),
        bare: () => timeRun(process.execPath, [path.join(BARE, 'status.js'), db], {env: bareEnv}),
        node: () => timeRun(process.execPath, ['-e', '0'], {env}),
        cat: () => timeRun('cat', [lineFile], {env}),
      },
      {
        runs,
        warmup: 2,
        before: (name) => {
          if (name === 'counting') fs.rmSync(cache, {force: true})
          else if (name === 'cached' && !fs.existsSync(cache)) runCast(['status'], env)
        },
      },
    )
    const m = Object.fromEntries(Object.keys(times).map((k) => [k, median(times[k])]))
    // Means, not medians: a run of cat takes less than one clock tick of CPU accounting (10 ms).
    const mean = (xs) => (xs.length > 0 ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN)
    const cpu = Object.fromEntries(Object.keys(times).map((k) => [k, mean(times.cpu[k] ?? [])]))
    log(
      `status: ${fmtInt(count)} sessions: cast from status.json ${fmtMs(m.cached)}, counting ${fmtMs(m.counting)}, bare read ${fmtMs(m.bare)}, node -e 0 ${fmtMs(m.node)}, cat status.line ${fmtMs(m.cat)} (medians of ${runs})`,
    )
    // A missed budget: where a poll's time goes (the counting run: status.json removed first).
    let profile = null
    if (m.cached / m.node > BUDGET_RATIO || m.counting / m.node > BUDGET_RATIO) {
      fs.rmSync(cache, {force: true})
      profile = {counting: profileTop(['status'], env), cached: profileTop(['status'], env)}
    }

    return {...m, cpu, files: history?.files, profile, sessions: count, line, times}
  } finally {
    fs.rmSync(dir, {force: true, recursive: true})
  }
}

export async function run(argv = [], log = console.error) {
  const o = parseArgs(argv, DEFAULTS)
  const small = await measure(o.sessions, o.runs, o.seed, log)
  const big = await measure(o.big, Math.max(5, Math.round(o.runs / 2)), o.seed + 1, log)
  const rows = []
  // No daemon, on a generated history of --historyFiles files (0: not measured).
  let hist = null
  if (o.historyFiles > 0) {
    const c = historyCorpus({ageDays: 140, codex: 0.2, files: o.historyFiles, mb: o.historyMb, seed: 13}, log)
    hist = await measure(0, Math.max(5, Math.round(o.runs / 2)), 0, log, {dir: c.dir, files: c.files ?? o.historyFiles})
  }

  for (const m of [small, big, hist]) {
    if (m === null) continue
    const ratio = m.cached / m.node
    const what = m.files
      ? `${fmtInt(m.sessions)} sessions from a ${fmtInt(m.files)}-file history (${o.historyMb} MB), no daemon`
      : `${fmtInt(m.sessions)} sessions`
    rows.push(
      row(`status, ${what}, store unchanged since the last call (whole process)`, {
        budget: `≤ ${BUDGET_RATIO}× node -e 0`,
        cast: fmtMs(m.cached),
        cpuRatio: m.cpu.cached / m.cpu.node,
        detail: m,
        floor: `node -e 0 ${fmtMs(m.node)}`,
        met: ratio <= BUDGET_RATIO,
        ratio,
      }),
      row(`status, ${what}, first call after a change (counts the store)`, {
        ...(m.files ? {budget: `≤ ${BUDGET_RATIO}× node -e 0`, met: m.counting / m.node <= BUDGET_RATIO} : {}),
        cast: fmtMs(m.counting),
        detail: m.files ? {profile: m.profile?.counting ?? null} : {},
        floor: `bare read ${fmtMs(m.bare)}; node -e 0 ${fmtMs(m.node)}`,
        ratio: m.files ? m.counting / m.node : m.counting / m.bare,
      }),
    )
  }

  // A status line every `interval` seconds: the share of a core each setup costs (mean CPU a poll).
  const share = (cpuMs) => (Number.isFinite(cpuMs) ? cpuMs / (o.interval * 1000) : NaN)
  const viaCast = share(big.cpu.cached)
  const viaCat = share(big.cpu.cat)
  rows.push(
    row(`status line every ${o.interval} s, ${fmtInt(big.sessions)} sessions: #(cat status.line) with cast daemon`, {
      budget: `< ${(LINE_BUDGET_CORE * 100).toFixed(1)}% of a core`,
      cast: `${(viaCat * 100).toFixed(3)}% of a core`,
      detail: {cpuMs: big.cpu.cat},
      floor: `#(cast status): ${(viaCast * 100).toFixed(2)}%`,
      met: viaCat < LINE_BUDGET_CORE,
      ratio: null,
    }),
  )
  return rows
}

await main(import.meta.url, run)
