/**
 * bench/status: `cast status` (the one line a tmux status bar runs every few seconds) from a warm
 * store, as a whole process the way tmux runs it. Issue 15's budget: ≤ 50 ms. The floor, measured
 * in the same run: `node -e 0` (Node's own start) and a bare better-sqlite3 read of the same
 * rows (bench/bare/status.js). The store is the one bench/list.js builds (cast's adapter and Store).
 *
 *   node bench/status.js [--sessions 500] [--big 10000] [--runs 15]
 */
import fs from 'node:fs'
import path from 'node:path'

import {BARE, NOW, ROOT, baseEnv, fmtInt, fmtMs, main, median, parseArgs, row, runCast, sideBySide, tempDir, timeRun} from './lib/common.js'
import {buildListStore} from './list.js'

const DEFAULTS = {sessions: 500, big: 10_000, runs: 15, seed: 23}
const BUDGET_MS = 50

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
    const bareEnv = {...env, CAST_BENCH_ROOT: ROOT}
    const line = runCast(['status'], env, {capture: true}).stdout.trim()
    log(`status: ${fmtInt(count)} sessions: cast status says "${line}"`)
    const times = sideBySide(
      {
        cast: () => runCast(['status'], env),
        bare: () => timeRun(process.execPath, [path.join(BARE, 'status.js'), db], {env: bareEnv}),
        node: () => timeRun(process.execPath, ['-e', '0'], {env}),
      },
      {runs, warmup: 2},
    )
    const m = {cast: median(times.cast), bare: median(times.bare), node: median(times.node)}
    log(
      `status: ${fmtInt(count)} sessions: cast ${fmtMs(m.cast)}, bare read ${fmtMs(m.bare)}, node -e 0 ${fmtMs(m.node)} (medians of ${runs})`,
    )
    return {...m, sessions: count, line, times}
  } finally {
    fs.rmSync(dir, {force: true, recursive: true})
  }
}

export async function run(argv = [], log = console.error) {
  const o = parseArgs(argv, DEFAULTS)
  const small = await measure(o.sessions, o.runs, o.seed, log)
  const big = await measure(o.big, Math.max(5, Math.round(o.runs / 2)), o.seed + 1, log)
  return [
    row(`status, ${fmtInt(small.sessions)} sessions, warm store (whole process)`, {
      budget: `≤ ${BUDGET_MS} ms`,
      cast: fmtMs(small.cast),
      detail: small,
      floor: `bare read ${fmtMs(small.bare)}; node -e 0 ${fmtMs(small.node)}`,
      met: small.cast <= BUDGET_MS,
      ratio: small.cast / small.bare,
    }),
    row(`status, ${fmtInt(big.sessions)} sessions, warm store (whole process)`, {
      cast: fmtMs(big.cast),
      detail: big,
      floor: `bare read ${fmtMs(big.bare)}; node -e 0 ${fmtMs(big.node)}`,
      ratio: big.cast / big.bare,
    }),
  ]
}

await main(import.meta.url, run)
