/**
 * `npm run bench`: every benchmark in one go, then ONE table (figure, cast, floor or peer,
 * ratio, budget, met?) and bench/results.json.
 *
 *   npm run bench                                  defaults: a few minutes on 2 cores
 *   npm run bench -- --mb 500                      issue 7's corpus size for the cold index
 *   npm run bench -- --only list,hook              a subset
 *   npm run bench -- --list.runs 9 --seconds 30    per-benchmark flags: --<bench>.<flag>;
 *                                                  unscoped flags go to every benchmark
 * The CLI under test: CAST_BENCH_ROOT (a build from scripts/build-to), else this checkout.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import {REPO, checkBuilt, machine, markdownTable, printTable} from './lib/common.js'
import {printBudgets} from './lib/budgets.js'

const BENCHES = [
  'dayone',
  'firstanswer',
  'sessions',
  'list',
  'index',
  'stream',
  'idle',
  'hook',
  'status',
  'warm',
  'statusline',
  'state',
  'web',
]

const argv = process.argv.slice(2)
let only = BENCHES
let out = path.join(REPO, 'bench', 'results.json')
const common = []
const scoped = Object.fromEntries(BENCHES.map((b) => [b, []]))
for (let i = 0; i < argv.length; i++) {
  const a = argv[i]
  const takesValue = argv[i + 1] !== undefined && !argv[i + 1].startsWith('--') && !a.includes('=')
  const value = takesValue ? argv[++i] : undefined
  const [key, inline] = a.slice(2).split('=', 2)
  const v = inline ?? value
  if (key === 'only') {
    only = String(v)
      .split(',')
      .map((s) => s.trim())
    continue
  }
  if (key === 'out') {
    out = path.resolve(String(v))
    continue
  }
  const dot = key.indexOf('.')
  const target = dot > 0 && BENCHES.includes(key.slice(0, dot)) ? scoped[key.slice(0, dot)] : common
  const name = dot > 0 ? key.slice(dot + 1) : key
  target.push(`--${name}`)
  if (v !== undefined) target.push(v)
}
for (const b of only) {
  if (!BENCHES.includes(b)) {
    console.error(`bench: unknown benchmark "${b}" (known: ${BENCHES.join(', ')})`)
    process.exit(2)
  }
}

checkBuilt()
const log = (m) => process.stderr.write(m + '\n')
const started = Date.now()
const rows = []
const runs = {}
for (const name of only) {
  const t0 = performance.now()
  const load = os.loadavg()[0]
  log(`\n== bench/${name}.js ${[...common, ...scoped[name]].join(' ')}`)
  try {
    const mod = await import(`./${name}.js`)
    const got = await mod.run([...common, ...scoped[name]], log)
    rows.push(...got)
    runs[name] = {seconds: Math.round((performance.now() - t0) / 100) / 10, loadavgBefore: load, loadavgAfter: os.loadavg()[0]}
  } catch (error) {
    log(`bench/${name}.js failed: ${error.stack ?? error}`)
    rows.push({
      figure: `${name}: failed`,
      cast: String(error.message ?? error).slice(0, 80),
      floor: '—',
      ratio: '—',
      budget: '—',
      met: false,
      detail: {},
    })
    runs[name] = {failed: String(error.message ?? error)}
  }
}

process.stdout.write('\n')
printTable(rows)
printBudgets(rows)
const missed = rows.filter((r) => r.met === false).length
process.stdout.write(
  `\n${rows.filter((r) => r.met === true).length} budgets met, ${missed} missed · ${machine().cpus} cores · node ${process.version} · ${Math.round((Date.now() - started) / 1000)} s · load average ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')} · CLI ${machine().root}\n`,
)
fs.writeFileSync(
  out,
  JSON.stringify(
    {generated_at: new Date().toISOString(), machine: machine(), args: argv, runs, rows, markdown: markdownTable(rows)},
    null,
    2,
  ) + '\n',
)
log(`wrote ${path.relative(process.cwd(), out) || out}`)
