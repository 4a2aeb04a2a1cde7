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
 *   node bench/status.js [--sessions 500] [--big 10000] [--runs 15] [--interval 5]
 */
import fs from 'node:fs'
import path from 'node:path'

import {BARE, NOW, ROOT, baseEnv, fmtInt, fmtMs, main, median, parseArgs, row, runCast, sideBySide, tempDir, timeRun} from './lib/common.js'
import {buildListStore} from './list.js'

const DEFAULTS = {sessions: 500, big: 10_000, runs: 15, seed: 23, interval: 5}
const BUDGET_RATIO = 1.5
/** A status line polling this often must cost under this share of a core (README "Status bar"). */
const LINE_BUDGET_CORE = 0.005

async function measure(n, runs, seed, log) {
  const dir = tempDir(`status-${n}`)
  try {
    const castHome = path.join(dir, 'cast')
    const home = path.join(dir, 'home')
    fs.mkdirSync(home, {recursive: true})
    const count = await buildListStore(castHome, n, seed)
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
    return {...m, cpu, sessions: count, line, times}
  } finally {
    fs.rmSync(dir, {force: true, recursive: true})
  }
}

export async function run(argv = [], log = console.error) {
  const o = parseArgs(argv, DEFAULTS)
  const small = await measure(o.sessions, o.runs, o.seed, log)
  const big = await measure(o.big, Math.max(5, Math.round(o.runs / 2)), o.seed + 1, log)
  const rows = []
  for (const m of [small, big]) {
    const ratio = m.cached / m.node
    rows.push(
      row(`status, ${fmtInt(m.sessions)} sessions, store unchanged since the last call (whole process)`, {
        budget: `≤ ${BUDGET_RATIO}× node -e 0`,
        cast: fmtMs(m.cached),
        detail: m,
        floor: `node -e 0 ${fmtMs(m.node)}`,
        met: ratio <= BUDGET_RATIO,
        ratio,
      }),
      row(`status, ${fmtInt(m.sessions)} sessions, first call after a change (counts the store)`, {
        cast: fmtMs(m.counting),
        detail: {},
        floor: `bare read ${fmtMs(m.bare)}; node -e 0 ${fmtMs(m.node)}`,
        ratio: m.counting / m.bare,
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
