/**
 * bench/sessions (issue 16): `cast sessions` before oclif. bin/run.js answers the listing without
 * loading oclif (src/lib/cli/sessions-fast.ts); this measures, side by side in one run, over a store
 * of 10,000 sessions (and a small one of 500):
 *   - cast sessions / cast sessions --json as a user runs them (the fast path),
 *   - the same build through oclif alone (bench/lib/oclif-only.js: what bin/run.js did before),
 *   - node -e 0 (Node's own start), the floor every ratio is taken against.
 * Both paths must print the same bytes (checked first). HOME is empty, so the sync before the
 * listing finds no files: the figure is startup plus the listing.
 *
 *   node bench/sessions.js [--sessions 10000] [--small 500] [--runs 9]
 */
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {
  NOW,
  ROOT,
  baseEnv,
  cpuRatioOf,
  fmtInt,
  fmtMs,
  main,
  median,
  parseArgs,
  row,
  runCast,
  sideBySide,
  tempDir,
  timeRun,
} from './lib/common.js'
import {buildListStore} from './list.js'

const DEFAULTS = {sessions: 10_000, small: 500, runs: 9, seed: 29}
const OCLIF_ONLY = path.join(path.dirname(fileURLToPath(import.meta.url)), 'lib', 'oclif-only.js')

async function measure(n, runs, seed, log) {
  const dir = tempDir(`sessions-${n}`)
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
      CAST_BENCH_ROOT: ROOT,
    })
    const oclif = (args) => timeRun(process.execPath, [OCLIF_ONLY, ...args], {env, rss: true})
    const out = {}
    for (const [key, args] of [
      ['human', ['sessions']],
      ['json', ['sessions', '--json']],
    ]) {
      const a = runCast(args, env, {capture: true}).stdout
      const b = timeRun(process.execPath, [OCLIF_ONLY, ...args], {env, capture: true}).stdout
      if (a !== b) throw new Error(`cast ${args.join(' ')}: the fast path and oclif print different bytes (${a.length} vs ${b.length})`)
      const lines = a.split('\n').length
      const times = sideBySide(
        {
          fast: () => runCast(args, env, {rss: true}),
          oclif: () => oclif(args),
          node: () => timeRun(process.execPath, ['-e', '0'], {env}),
        },
        {runs, warmup: 1},
      )
      const m = {fast: median(times.fast), oclif: median(times.oclif), node: median(times.node)}
      log(
        `sessions: ${fmtInt(count)} sessions, cast ${args.slice(1).join(' ') || '(human)'}: ${lines} lines; fast ${times.fast.map((t) => t.toFixed(0)).join(' ')} ms; oclif ${times.oclif.map((t) => t.toFixed(0)).join(' ')} ms; node -e 0 ${times.node.map((t) => t.toFixed(0)).join(' ')} ms`,
      )
      out[key] = {
        ...m,
        times,
        cpu: times.cpu,
        rssKb: times.rss,
        bytes: a.length,
        cpuFast: cpuRatioOf(times, 'fast', 'node'),
        cpuOclif: cpuRatioOf(times, 'oclif', 'node'),
      }
    }
    return {sessions: count, ...out}
  } finally {
    fs.rmSync(dir, {force: true, recursive: true})
  }
}

export async function run(argv = [], log = console.error) {
  const o = parseArgs(argv, DEFAULTS)
  const rows = []
  for (const n of [o.sessions, o.small].filter((x) => x > 0)) {
    const m = await measure(n, o.runs, o.seed + n, log)
    for (const key of ['human', 'json']) {
      const r = m[key]
      rows.push(
        row(`cast sessions${key === 'json' ? ' --json' : ''}, ${fmtInt(m.sessions)} sessions: before oclif vs through oclif`, {
          cast: `${fmtMs(r.fast)} (${(r.fast / r.node).toFixed(2)}× node -e 0)`,
          floor: `through oclif ${fmtMs(r.oclif)} (${(r.oclif / r.node).toFixed(2)}×); node -e 0 ${fmtMs(r.node)}`,
          ratio: r.fast / r.oclif,
          cpuRatio: cpuRatioOf(r.times, 'fast', 'oclif'),
          detail: r,
        }),
      )
    }
  }
  return rows
}

await main(import.meta.url, run)
