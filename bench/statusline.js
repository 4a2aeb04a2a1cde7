/**
 * bench/statusline: what a tmux status line showing cast costs, in a real tmux server with an
 * attached client (in a pty: tmux draws its status line, and runs its `#()` jobs, only for
 * clients), `status-interval` 2. Budget (issue 27, README "Status bar"): the documented setup
 * (`#(cat status.line)`, the file `cast daemon` keeps) under 0.5% of a core.
 *
 * Phases, rotated over `--rounds` so each sees the same load, each `--seconds` long; CPU of the
 * tmux server (with the jobs it runs and reaps) and of the client, from /proc (bench/lib/proc.js):
 * - clock: `status-right ' %H:%M '`, tmux's own line (the floor);
 * - cat: `#(cat …/status.line) · %H:%M`, the README's line with `cast daemon` running;
 * - cast: `#(cast status) · %H:%M`, the line without a daemon (a Node start a poll, answered
 *   from status.json), over a store of `--sessions` sessions.
 * The daemon itself is bench/idle.js.
 *
 *   node bench/statusline.js [--seconds 30] [--rounds 3] [--interval 2] [--sessions 10000]
 */
import fs from 'node:fs'
import path from 'node:path'

import {BIN, NOW, baseEnv, fmtInt, main, median, parseArgs, row, runCast, sleep, tempDir} from './lib/common.js'
import {HZ, loadAvg, treeTicks} from './lib/proc.js'
import {hasTmux, startTmux} from './lib/tmux.js'
import {buildListStore} from './list.js'

const DEFAULTS = {seconds: 30, rounds: 3, interval: 2, sessions: 10_000, seed: 24}
const BUDGET = 0.5

export async function run(argv = [], log = console.error) {
  const o = parseArgs(argv, DEFAULTS)
  if (!fs.existsSync('/proc/self/stat') || !hasTmux() || !fs.existsSync('/usr/bin/script')) {
    return [row('tmux status line', {cast: 'n/a', floor: 'needs /proc, tmux and script(1)', budget: `< ${BUDGET}% of a core`})]
  }
  const dir = tempDir('statusline')
  let tmux = null
  try {
    const castHome = path.join(dir, 'cast')
    const home = path.join(dir, 'home')
    fs.mkdirSync(home, {recursive: true})
    const count = await buildListStore(castHome, o.sessions, o.seed)
    const env = baseEnv({
      HOME: home,
      CAST_HOME: castHome,
      CAST_NOW: new Date(NOW).toISOString(),
      XDG_CONFIG_HOME: path.join(home, '.config'),
    })
    const line = runCast(['status'], env, {capture: true}).stdout.trim()
    const lineFile = path.join(castHome, 'status.line')
    fs.writeFileSync(lineFile, line + '\n')
    log(`statusline: ${fmtInt(count)} sessions, the line says "${line}"`)
    tmux = startTmux(path.join(dir, 'tmux'), {panes: 1})
    for (const [k, v] of Object.entries(env)) tmux.tmux('set-environment', '-g', k, v)
    tmux.tmux('set', '-g', 'status-interval', String(o.interval))
    const phases = {
      clock: ' %H:%M ',
      cat: `#(cat ${lineFile}) · %H:%M `,
      cast: `#(${process.execPath} ${BIN} status) · %H:%M `,
    }
    const names = Object.keys(phases)
    const got = Object.fromEntries(names.map((n) => [n, []]))
    const loads = []
    const client = await tmux.attach()
    for (let round = 0; round < o.rounds; round++) {
      for (let i = 0; i < names.length; i++) {
        const name = names[(i + round) % names.length]
        tmux.tmux('set', '-g', 'status-right', phases[name])
        await sleep(o.interval * 1000 + 500)
        const a = {server: treeTicks(tmux.pid)?.total ?? 0, client: treeTicks(client)?.total ?? 0}
        const t0 = performance.now()
        await sleep(o.seconds * 1000)
        const b = {server: treeTicks(tmux.pid)?.total ?? 0, client: treeTicks(client)?.total ?? 0}
        const secs = (performance.now() - t0) / 1000
        const pct = (ticks) => (ticks / HZ / secs) * 100
        const r = {server: pct(b.server - a.server), client: pct(b.client - a.client), load: loadAvg()[0]}
        r.total = r.server + r.client
        got[name].push(r)
        loads.push(r.load)
        log(
          `statusline: round ${round + 1} ${name}: ${r.total.toFixed(3)}% of a core (server and its jobs ${r.server.toFixed(3)}%, client ${r.client.toFixed(3)}%), load ${r.load}`,
        )
      }
    }
    const med = (n) => median(got[n].map((r) => r.total))
    const over = (n) => median(got[n].map((r, i) => r.total - got.clock[i].total))
    const where = `status-interval ${o.interval} s, one attached client, ${o.seconds} s × ${o.rounds}, load ${median(loads).toFixed(1)}`
    return [
      row(`tmux status line #(cat status.line) (README, with cast daemon), ${where}`, {
        cast: `${med('cat').toFixed(3)}% of a core (${over('cat').toFixed(3)}% over tmux's own line)`,
        floor: `tmux's own line (' %H:%M ') ${med('clock').toFixed(3)}%`,
        budget: `< ${BUDGET}% of a core`,
        met: med('cat') < BUDGET,
        detail: got,
      }),
      row(`tmux status line #(cast status) without a daemon, ${fmtInt(count)} sessions, ${where}`, {
        cast: `${med('cast').toFixed(3)}% of a core (${over('cast').toFixed(3)}% over tmux's own line)`,
        floor: `tmux's own line ${med('clock').toFixed(3)}%`,
        detail: {},
      }),
    ]
  } finally {
    await tmux?.stop()
    fs.rmSync(dir, {force: true, recursive: true})
  }
}

await main(import.meta.url, run)
