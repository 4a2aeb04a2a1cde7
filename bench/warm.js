/**
 * bench/warm: `cast sessions` and `cast status` answered by a running `cast daemon` over its
 * socket (src/lib/state/read-socket.ts), as whole processes, against `node -e 0` in the same
 * rounds; and the same commands before the daemon starts (the normal path: the store opened, the
 * quick sync), against `node -e 0` in rounds of their own. What starting a daemon buys is the
 * ratio of the two. The store is the one bench/list.js builds (cast's adapter and Store), HOME
 * empty.
 *
 * Each contender is checked first: with the daemon, the run must be answered through the socket
 * (test/helpers/oclif-probe.mjs says "socket": neither oclif nor better-sqlite3 loaded), and its
 * bytes must equal those printed before the daemon started. `cast status` is read for another
 * identity than the daemon's (CAST_USER), so the status.json the daemon keeps for its own does not
 * answer it and the count is asked for; "status, status.json" is the status bar's usual poll.
 * Budget: `cast status` ≤ 1.5× node -e 0 with or without a daemon (DESIGN §7); the sessions rows
 * are for information.
 *
 *   node bench/warm.js [--sessions 500] [--big 10000] [--runs 11]
 */
import fs from 'node:fs'
import path from 'node:path'
import {spawn} from 'node:child_process'
import {fileURLToPath} from 'node:url'

import {BIN, NOW, baseEnv, fmtInt, fmtMs, main, median, parseArgs, row, runCast, sideBySide, sleep, tempDir, timeRun} from './lib/common.js'
import {buildListStore} from './list.js'

const DEFAULTS = {sessions: 500, big: 10_000, runs: 11, seed: 41}
const STATUS_BUDGET = 1.5
const PROBE = fileURLToPath(new URL('../test/helpers/oclif-probe.mjs', import.meta.url))
const OTHER = 'someone-else@example.com'
const OCLIF_ONLY = fileURLToPath(new URL('./lib/oclif-only.js', import.meta.url))

const READS = {
  sessions: ['sessions'],
  'sessions --json': ['sessions', '--json'],
  'sessions --json --all': ['sessions', '--json', '--all'],
  'status (counted)': ['status'],
}

async function measure(n, runs, seed, log) {
  const dir = tempDir(`warm-${n}`)
  let daemon = null
  try {
    const castHome = path.join(dir, 'cast')
    const home = path.join(dir, 'home')
    fs.mkdirSync(home, {recursive: true})
    const count = await buildListStore(castHome, n, seed)
    const env = baseEnv({
      HOME: home,
      CAST_HOME: castHome,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      XDG_DATA_HOME: path.join(home, '.local', 'share'),
    })
    // A fixed clock for the listings (their header and JSON say the time). Not for status: its
    // command refuses a test clock beside a live ingester, and its line says no time.
    const listEnv = {...env, CAST_NOW: new Date(NOW).toISOString()}
    const envOf = (name) => (name.startsWith('status (counted)') ? {...env, CAST_USER: OTHER} : listEnv)
    const cache = path.join(castHome, 'status.json')
    const clearFor = (name) => name === 'status (counted)' && fs.rmSync(cache, {force: true})
    const probe = path.join(dir, 'probe')
    const once = (name, clear) => {
      if (clear) clearFor(name)
      fs.rmSync(probe, {force: true})
      const r = runCast(READS[name], {...envOf(name), CAST_TEST_PROBE: probe, NODE_OPTIONS: `--import=${PROBE}`}, {capture: true})
      return {out: r.stdout, via: fs.readFileSync(probe, 'utf8').trim()}
    }

    // Before the daemon: the normal path (the bytes' sizes kept for the rows).
    const cold = Object.fromEntries(Object.keys(READS).map((k) => [k, once(k, true).out]))
    const contenders = (prefix) => ({
      ...Object.fromEntries(Object.keys(READS).map((k) => [`${prefix}${k}`, () => runCast(READS[k], envOf(k))])),
      node: () => timeRun(process.execPath, ['-e', '0'], {env}),
    })
    const before = (name) => clearFor(name.replace(/^(cold|warm) /, ''))
    const without = sideBySide(contenders('cold '), {before, runs, warmup: 1})

    daemon = spawn(process.execPath, [BIN, 'daemon'], {env, stdio: 'ignore'})
    for (let i = 0; i < 240 && !fs.existsSync(path.join(castHome, 'run', 'state.sock')); i++) await sleep(250)
    // The daemon's first status.json, so that the status bar's poll reads it.
    const kept = () => fs.existsSync(cache) && fs.readFileSync(cache, 'utf8').includes('"keeper"')
    for (let i = 0; i < 120 && !kept(); i++) await sleep(250)
    // The bytes to match are the command's own (oclif, no fast path) over the store as the daemon
    // keeps it: its passes on the real clock may have moved it since (snoozes due, claims gone
    // stale). test/e2e/warm-read.test.ts compares with no daemon.
    for (const k of Object.keys(READS)) {
      const warm = once(k, false)
      if (warm.via !== 'socket') throw new Error(`warm: ${k} was answered by the ${warm.via} path, not the daemon's socket`)
      const own = timeRun(process.execPath, [OCLIF_ONLY, ...READS[k]], {capture: true, env: envOf(k)}).stdout
      if (warm.out !== own) throw new Error(`warm: ${k} printed other bytes through the daemon than the command prints`)
    }

    const withD = sideBySide(
      // The daemon keeps status.json; nothing removes it here (the counted runs read for OTHER).
      {...contenders('warm '), 'warm status, status.json': () => runCast(['status'], env)},
      {runs, warmup: 1},
    )
    const m = (t, k) => ({cpu: median(t.cpu[k] ?? []), wall: median(t[k])})
    const figures = {
      cold: Object.fromEntries(Object.keys(READS).map((k) => [k, m(without, `cold ${k}`)])),
      nodeCold: m(without, 'node'),
      nodeWarm: m(withD, 'node'),
      statusCache: m(withD, 'warm status, status.json'),
      warm: Object.fromEntries(Object.keys(READS).map((k) => [k, m(withD, `warm ${k}`)])),
    }
    for (const k of Object.keys(READS))
      log(
        `warm: ${fmtInt(count)} sessions, ${k}: daemon ${fmtMs(figures.warm[k].wall)} (node -e 0 ${fmtMs(figures.nodeWarm.wall)}), no daemon ${fmtMs(figures.cold[k].wall)} (node -e 0 ${fmtMs(figures.nodeCold.wall)})`,
      )
    return {count, figures, bytes: Object.fromEntries(Object.entries(cold).map(([k, v]) => [k, Buffer.byteLength(v)]))}
  } finally {
    if (daemon) {
      daemon.kill('SIGTERM')
      await new Promise((r) => (daemon.exitCode === null ? daemon.once('exit', r) : r()))
    }

    fs.rmSync(dir, {force: true, recursive: true})
  }
}

export async function run(argv = [], log = console.error) {
  const o = parseArgs(argv, DEFAULTS)
  const rows = []
  for (const [n, seed] of [
    [o.sessions, o.seed],
    [o.big, o.seed + 1],
  ]) {
    if (!(n > 0)) continue
    const {count, figures: f, bytes} = await measure(n, o.runs, seed, log)
    for (const k of Object.keys(READS)) {
      const status = k.startsWith('status')
      const ratio = f.warm[k].wall / f.nodeWarm.wall
      const coldRatio = f.cold[k].wall / f.nodeCold.wall
      rows.push(
        row(
          `${status ? 'status' : k}${status ? ' counted' : ''}, ${fmtInt(count)} sessions, through cast daemon's socket (whole process)`,
          {
            budget: status ? `≤ ${STATUS_BUDGET}× node -e 0` : '—',
            cast: fmtMs(f.warm[k].wall),
            cpuRatio: f.warm[k].cpu / f.nodeWarm.cpu,
            detail: {bytes: bytes[k], ...f.warm[k], node: f.nodeWarm},
            floor: `node -e 0 ${fmtMs(f.nodeWarm.wall)}`,
            met: status ? ratio <= STATUS_BUDGET : null,
            ratio,
          },
        ),
        row(`${k}, ${fmtInt(count)} sessions, no daemon (the store opened; what a daemon saves: ${(coldRatio / ratio).toFixed(1)}×)`, {
          cast: fmtMs(f.cold[k].wall),
          cpuRatio: f.cold[k].cpu / f.nodeCold.cpu,
          detail: {...f.cold[k], node: f.nodeCold},
          floor: `node -e 0 ${fmtMs(f.nodeCold.wall)}`,
          ratio: coldRatio,
        }),
      )
    }

    rows.push(
      row(`status, ${fmtInt(count)} sessions, with cast daemon, from its status.json (whole process)`, {
        budget: `≤ ${STATUS_BUDGET}× node -e 0`,
        cast: fmtMs(f.statusCache.wall),
        cpuRatio: f.statusCache.cpu / f.nodeWarm.cpu,
        detail: {...f.statusCache, node: f.nodeWarm},
        floor: `node -e 0 ${fmtMs(f.nodeWarm.wall)}`,
        met: f.statusCache.wall / f.nodeWarm.wall <= STATUS_BUDGET,
        ratio: f.statusCache.wall / f.nodeWarm.wall,
      }),
    )
  }

  return rows
}

await main(import.meta.url, run)
