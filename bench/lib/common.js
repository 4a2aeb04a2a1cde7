/**
 * Shared plumbing for the benchmarks: where the CLI under test lives, timing whole processes,
 * medians and percentiles, cached corpora, and the one results table.
 */
import {spawn, spawnSync} from 'node:child_process'
import fs from 'node:fs'
import {createRequire} from 'node:module'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
/** The package under test: CAST_BENCH_ROOT (a private build from scripts/build-to), else this checkout (after npm run build). */
export const ROOT = path.resolve(process.env.CAST_BENCH_ROOT || REPO)
export const BIN = path.join(ROOT, 'bin', 'run.js')
export const HOOK = path.join(ROOT, 'bin', 'cast-hook')
export const DATA = path.join(REPO, 'bench', '.data')
export const BARE = path.join(REPO, 'bench', 'bare')
/** The clock every generated corpus is built around (and the CAST_NOW of runs that need one). */
export const NOW = Date.parse('2026-11-29T12:00:00.000Z')
export const USER = 'bench@example.com'

export function checkBuilt() {
  for (const f of [BIN, path.join(ROOT, 'dist', 'commands', 'sessions.js')]) {
    if (!fs.existsSync(f)) {
      console.error(`bench: ${f} is missing. Run "npm run build" first (or set CAST_BENCH_ROOT to a build from scripts/build-to).`)
      process.exit(2)
    }
  }
}

/** Import a module of the built CLI (dist/…). */
export function importDist(rel) {
  return import(pathToFileURL(path.join(ROOT, 'dist', rel)).href)
}

/** require() a dependency as the CLI under test resolves it (better-sqlite3 for the bare scripts). */
export const requireFromRoot = createRequire(path.join(ROOT, 'package.json'))

/** `--key value`, `--key=value` and `--flag` into an object, with numeric defaults coerced. */
export function parseArgs(argv, defaults) {
  const out = {...defaults}
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (!a.startsWith('--')) continue
    let [k, v] = a.slice(2).split('=', 2)
    if (v === undefined) {
      const next = argv[i + 1]
      const isBool = typeof defaults[k] === 'boolean'
      if (next !== undefined && !next.startsWith('--') && (!isBool || next === 'true' || next === 'false')) {
        v = next
        i++
      } else {
        v = 'true'
      }
    }
    const d = defaults[k]
    out[k] = typeof d === 'number' ? Number(v) : typeof d === 'boolean' ? v !== 'false' : v
  }
  return out
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/** Nearest-rank percentile. */
export function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]
}

export function tempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `cast-bench-${prefix}-`))
}

/** A clean environment for the CLI: only what a user's shell would pass, plus `extra`. */
export function baseEnv(extra) {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
    CAST_USER: USER,
    ...extra,
  }
}

/**
 * Run a whole process and time it (wall clock, from spawn to exit). stdout goes to /dev/null
 * unless `capture` (then it is returned); a non-zero exit throws.
 */
/** CPU time (ms) of this process's waited-for children so far, from /proc (null elsewhere). */
export function childCpuMs() {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(f[13]) + Number(f[14])) * 1000) / CLK_TCK
  } catch {
    return null
  }
}

const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim()) || 100

/** GNU time, for the peak RSS of a whole process (`rss: true`); null where it is missing. */
const GNU_TIME = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : null

export function timeRun(cmd, args, {env, input, capture = false, allowFail = false, rss = false} = {}) {
  let rssFile = null
  if (rss && GNU_TIME) {
    rssFile = path.join(os.tmpdir(), `cast-bench-rss-${process.pid}-${Math.random().toString(36).slice(2)}`)
    args = ['-f', '%M', '-o', rssFile, cmd, ...args]
    cmd = GNU_TIME
  }
  const c0 = childCpuMs()
  const t0 = process.hrtime.bigint()
  const r = spawnSync(cmd, args, {
    env,
    input,
    stdio: [input === undefined ? 'ignore' : 'pipe', capture ? 'pipe' : 'ignore', 'pipe'],
    maxBuffer: 1 << 30,
  })
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  const c1 = childCpuMs()
  const cpuMs = c0 === null || c1 === null ? null : c1 - c0
  if (!allowFail && (r.status !== 0 || r.error)) {
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.error}): ${String(r.stderr).slice(0, 2000)}`)
  }
  let rssKb = null
  if (rssFile) {
    try {
      rssKb = Number(fs.readFileSync(rssFile, 'utf8').trim().split('\n').pop()) || null
    } catch {
      // no RSS file (the time wrapper did not write one): the figure stays null
    }
    fs.rmSync(rssFile, {force: true})
  }
  return {ms, cpuMs, rssKb, stdout: capture ? r.stdout.toString('utf8') : '', stderr: String(r.stderr), code: r.status}
}

export function runCast(args, env, opts = {}) {
  return timeRun(process.execPath, [BIN, ...args], {env, ...opts})
}

/**
 * Measure several contenders side by side: `runs` rounds, each running every contender once in
 * a rotating order (so none always goes first), after `warmup` untimed rounds. A contender
 * returns the result of timeRun (or a number of ms). Returns wall times, and CPU times (user +
 * system of the whole process tree) where /proc has them.
 */
export function sideBySide(contenders, {runs, warmup = 1, before} = {}) {
  const times = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]))
  const cpu = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]))
  const rss = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]))
  const names = Object.keys(contenders)
  for (let round = -warmup; round < runs; round++) {
    const order = names.map((_, i) => names[(i + Math.max(0, round)) % names.length])
    for (const name of order) {
      before?.(name)
      const r = contenders[name]()
      if (round < 0) continue
      times[name].push(typeof r === 'number' ? r : r.ms)
      if (typeof r === 'object' && r.cpuMs !== null && r.cpuMs !== undefined) cpu[name].push(r.cpuMs)
      if (typeof r === 'object' && r.rssKb) rss[name].push(r.rssKb)
    }
  }
  Object.defineProperty(times, 'cpu', {enumerable: false, value: cpu})
  Object.defineProperty(times, 'rss', {enumerable: false, value: rss})
  return times
}

/** A long-running child whose stdout is read line by line, with each line's arrival time. */
export function startChild(cmd, args, env, onLine) {
  const child = spawn(cmd, args, {env, stdio: ['ignore', 'pipe', 'pipe']})
  let buf = ''
  let stderr = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (chunk) => {
    const at = performance.now()
    buf += chunk
    let i
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i)
      buf = buf.slice(i + 1)
      onLine(line, at)
    }
  })
  child.stderr.on('data', (c) => {
    stderr += String(c)
  })
  return {
    child,
    stderr: () => stderr,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode)
        const t = setTimeout(() => child.kill('SIGKILL'), 10_000)
        child.once('exit', (code) => {
          clearTimeout(t)
          resolve(code)
        })
        child.kill('SIGTERM')
      }),
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/**
 * A generated corpus, cached under bench/.data/<name> (gitignored): built once by `build(dir)`,
 * reused while the marker with the same parameters is there.
 */
export function cachedCorpus(name, params, build) {
  const dir = path.join(DATA, name)
  const marker = path.join(dir, '.complete.json')
  const want = JSON.stringify(params)
  if (fs.existsSync(marker)) {
    const have = JSON.parse(fs.readFileSync(marker, 'utf8'))
    if (JSON.stringify(have.params) === want) return {dir, ...have.info, cached: true}
  }
  fs.rmSync(dir, {force: true, recursive: true})
  fs.mkdirSync(dir, {recursive: true})
  const t0 = performance.now()
  const info = build(dir)
  const ms = Math.round(performance.now() - t0)
  fs.writeFileSync(marker, JSON.stringify({params, info: {...info, buildMs: ms}}))
  return {dir, ...info, buildMs: ms, cached: false}
}

export function dirBytes(dir) {
  let n = 0
  let files = 0
  const walk = (d) => {
    for (const e of fs.readdirSync(d, {withFileTypes: true})) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.isFile()) {
        n += fs.statSync(p).size
        files++
      }
    }
  }
  if (fs.existsSync(dir)) walk(dir)
  return {bytes: n, files}
}

// ------------------------------------------------------------------------------- results

export const fmtMs = (ms) =>
  ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 1 : 0)} ms`
export const fmtRatio = (x) => `${x.toFixed(2)}×`
/** Peak RSS (max over the runs, KB from GNU time) as MB. */
export const fmtRss = (kbs) => (kbs && kbs.length > 0 ? `${(Math.max(...kbs) / 1024).toFixed(0)} MB` : '—')
export const fmtInt = (n) => n.toLocaleString('en-US')

/**
 * One row of the table: figure, cast, floor or peer, ratio, budget, met?
 * `met` is true/false, or null when the row is informational (no budget).
 */
export function row(figure, {cast, floor = '—', ratio = null, cpuRatio = null, budget = '—', met = null, detail = {}}) {
  const shown =
    ratio === null
      ? '—'
      : cpuRatio === null || !Number.isFinite(cpuRatio)
        ? fmtRatio(ratio)
        : `${fmtRatio(ratio)} (cpu ${fmtRatio(cpuRatio)})`
  return {figure, cast, floor, ratio: shown, ratioValue: ratio, cpuRatio, budget, met, detail}
}

/** Median CPU ratio a/b from sideBySide's cpu times, or null. */
export function cpuRatioOf(times, a, b) {
  const x = times.cpu?.[a] ?? []
  const y = times.cpu?.[b] ?? []
  return x.length && y.length && median(y) > 0 ? median(x) / median(y) : null
}

export function printTable(rows, out = process.stdout) {
  const head = ['figure', 'cast', 'floor or peer', 'ratio', 'budget', 'met?']
  const cells = rows.map((r) => [r.figure, r.cast, r.floor, r.ratio, r.budget, r.met === null ? '—' : r.met ? 'yes' : 'NO'])
  const width = head.map((h, i) => Math.max(h.length, ...cells.map((c) => [...c[i]].length)))
  const line = (c) => c.map((x, i) => x + ' '.repeat(width[i] - [...x].length)).join(' │ ')
  out.write(line(head) + '\n')
  out.write(width.map((w) => '─'.repeat(w)).join('─┼─') + '\n')
  for (const c of cells) out.write(line(c) + '\n')
}

/** Markdown version of the table, for docs/benchmarks.md. */
export function markdownTable(rows) {
  const esc = (s) => String(s).replace(/\|/g, '\\|')
  const lines = ['| figure | cast | floor or peer | ratio | budget | met? |', '|---|---|---|---|---|---|']
  for (const r of rows)
    lines.push(
      `| ${[r.figure, r.cast, r.floor, r.ratio, r.budget, r.met === null ? '—' : r.met ? 'yes' : '**no**'].map(esc).join(' | ')} |`,
    )
  return lines.join('\n')
}

export function machine() {
  return {
    node: process.version,
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    memGiB: Math.round(os.totalmem() / 2 ** 30),
    platform: `${os.platform()} ${os.release()}`,
    root: ROOT,
  }
}

/** Run a benchmark module's `run` when the file is executed directly; print its rows. */
export async function main(metaUrl, run) {
  if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(metaUrl)) {
    checkBuilt()
    const rows = await run(process.argv.slice(2), (m) => process.stderr.write(m + '\n'))
    printTable(rows)
  }
}
