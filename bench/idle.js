/**
 * bench/idle: `cast daemon` at rest over a 10,000-file history, with a tmux server running (a
 * user's, with a few shell windows; on a private socket the daemon finds through $TMUX_TMPDIR).
 * Budget (issue 27): < 0.3% of one core, what the daemon runs included.
 *
 * Setup: the cached watch corpus (bench/lib/watched.js) copied with its mtimes (days old), then
 * `--recent` of its files touched within the last ten minutes (the sessions of the day: the stat
 * sweep's set); indexed once; then `cast daemon` started, and after its "watching" line and a
 * `--settle`, sampled every second for `--seconds`:
 * - the daemon's own CPU (utime + stime of /proc/<pid>/stat);
 * - its children's: cutime + cstime (the `tmux` clients it ran and reaped) plus every live
 *   descendant's (bench/lib/proc.js);
 * - the tmux server's (it answers the daemon's `list-panes` and `capture-pane`; idle otherwise);
 * - RSS at the start and the end.
 * `--rounds` runs (a fresh daemon each), rotating with `--baseline DIR` (another build, e.g. from
 * scripts/build-to) when given, so both are measured under the same load; medians are reported,
 * with the load average. `--agent` adds a window running a process named `claude` (a copy of
 * sleep): an agent pane the sweep must look at (informational).
 *
 *   node bench/idle.js [--files 10000] [--seconds 60] [--settle 90] [--rounds 3] [--recent 100]
 *                      [--panes 3] [--agent] [--baseline DIR]
 */
import fs from 'node:fs'
import path from 'node:path'

import {BIN, baseEnv, fmtInt, main, median, parseArgs, row, sleep, startChild, tempDir, timeRun} from './lib/common.js'
import {HZ, loadAvg, treeTicks} from './lib/proc.js'
import {hasTmux, startTmux} from './lib/tmux.js'
import {watchedCorpus} from './lib/watched.js'

const DEFAULTS = {files: 10_000, seconds: 60, settle: 90, rounds: 3, recent: 100, panes: 3, agent: false, baseline: ''}
const BUDGET = 0.3

function rssKiB(pid) {
  try {
    const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) : NaN
  } catch {
    return NaN
  }
}

/**
 * A copy of the corpus as a history looks: every file last written 1 to 60 days ago, then
 * `recent` of them within the last ten minutes (the sessions of the day, which the stat sweep
 * looks at; `--recent 10000` gives every file).
 */
function prepareHome(base, dest, recent) {
  fs.cpSync(base.home, dest, {recursive: true})
  const now = Date.now()
  const files = base.sessions.map((s) => path.join(dest, path.relative(base.home, s.path)))
  files.forEach((f, i) => {
    const at = new Date(now - 86_400_000 * (1 + ((i * 7919) % 59)))
    fs.utimesSync(f, at, at)
  })
  for (let i = 0; i < Math.min(recent, files.length); i++) {
    const at = new Date(now - ((i * 7919) % 600) * 1000)
    fs.utimesSync(files[(i * 97) % files.length], at, at)
  }
}

/** Start `cast daemon` from `bin`; resolves once it says it is watching. */
async function startDaemon(bin, env) {
  const d = startChild(process.execPath, [bin, 'daemon'], env, () => {})
  for (let i = 0; i < 1200; i++) {
    if (/cast daemon: watching/.test(d.stderr())) return d
    if (d.child.exitCode !== null) throw new Error(`cast daemon exited: ${d.stderr()}`)
    await sleep(50)
  }
  await d.stop()
  throw new Error(`cast daemon never said it was watching: ${d.stderr()}`)
}

/** One measured run: percentages of one core over the window. */
async function measureOnce(c, tmuxPid, o) {
  const d = await startDaemon(c.bin, c.env)
  try {
    await sleep(o.settle * 1000)
    const pid = d.child.pid
    const load = loadAvg()[0]
    const t0 = performance.now()
    const a = treeTicks(pid)
    const ta = tmuxPid ? (treeTicks(tmuxPid)?.total ?? 0) : 0
    const rss0 = rssKiB(pid)
    // Sample every second, so a descendant that lives a few seconds is seen live.
    for (let s = 0; s < o.seconds; s++) {
      await sleep(1000)
      treeTicks(pid)
    }
    const b = treeTicks(pid)
    const tb = tmuxPid ? (treeTicks(tmuxPid)?.total ?? 0) : 0
    const secs = (performance.now() - t0) / 1000
    const pct = (ticks) => (ticks / HZ / secs) * 100
    const r = {
      own: pct(b.own - a.own),
      children: pct(b.children - a.children),
      tmux: pct(tb - ta),
      secs,
      load,
      rss: [rss0, rssKiB(pid)],
      log: d.stderr(),
    }
    r.total = r.own + r.children + r.tmux
    return r
  } finally {
    await d.stop()
  }
}

export async function run(argv = [], log = console.error) {
  const o = parseArgs(argv, DEFAULTS)
  if (!fs.existsSync('/proc/self/stat')) {
    return [row('cast daemon idle CPU', {cast: 'n/a', floor: 'needs /proc (Linux)', budget: `< ${BUDGET}% of a core`})]
  }
  const corpus = watchedCorpus(o.files, log)
  const work = tempDir('idle')
  let tmux = null
  try {
    const contenders = [{name: 'cast', bin: BIN}]
    if (o.baseline) contenders.push({name: 'baseline', bin: path.join(path.resolve(o.baseline), 'bin', 'run.js')})
    if (hasTmux() && o.panes > 0) {
      tmux = startTmux(path.join(work, 'tmux'), {panes: o.panes, agent: o.agent ? {name: 'claude', cwd: work} : null})
      log(`idle: a tmux server (pid ${tmux.pid}) with ${o.panes} shell windows${o.agent ? ' and an agent window' : ''}`)
    }
    for (const c of contenders) {
      const dir = path.join(work, c.name)
      const home = path.join(dir, 'home')
      prepareHome(corpus, home, o.recent)
      c.env = baseEnv({
        HOME: home,
        CAST_HOME: path.join(dir, 'cast'),
        XDG_CONFIG_HOME: path.join(dir, 'config'),
        ...(tmux ? {TMUX_TMPDIR: path.join(work, 'tmux')} : {TMUX_TMPDIR: path.join(work, 'no-tmux')}),
      })
      const idx = timeRun(process.execPath, [c.bin, 'sessions', '--json', '--all'], {env: c.env})
      log(`idle: ${c.name}: indexed ${fmtInt(corpus.files)} files (${o.recent} recent) in ${(idx.ms / 1000).toFixed(1)} s`)
      c.runs = []
    }
    for (let round = 0; round < o.rounds; round++) {
      const order = contenders.map((_, i) => contenders[(i + round) % contenders.length])
      for (const c of order) {
        const r = await measureOnce(c, tmux?.pid, o)
        c.runs.push(r)
        log(
          `idle: round ${round + 1} ${c.name}: ${r.total.toFixed(3)}% of a core (daemon ${r.own.toFixed(3)}%, children ${r.children.toFixed(3)}%, tmux server ${r.tmux.toFixed(3)}%) over ${r.secs.toFixed(0)} s, load ${r.load}`,
        )
      }
    }
    const rows = []
    const med = (c, k) => median(c.runs.map((r) => r[k]))
    const loads = contenders.flatMap((c) => c.runs.map((r) => r.load))
    const where = `${fmtInt(corpus.files)} files (${o.recent} recent), ${tmux ? `tmux with ${o.panes} shell windows${o.agent ? ' + an agent window' : ''}` : 'no tmux'}`
    for (const c of contenders) {
      const total = med(c, 'total')
      rows.push(
        row(`${c.name === 'cast' ? 'cast daemon' : `baseline daemon (${o.baseline})`} idle, ${where}, ${o.seconds} s × ${o.rounds}`, {
          cast: `${total.toFixed(3)}% of a core (daemon ${med(c, 'own').toFixed(3)}% + children ${med(c, 'children').toFixed(3)}% + tmux server ${med(c, 'tmux').toFixed(3)}%)`,
          floor: `load ${median(loads).toFixed(1)} (median)`,
          budget: `< ${BUDGET}% of a core`,
          met: c.name === 'cast' ? total < BUDGET : null,
          detail: {runs: c.runs.map(({log: _l, ...r}) => r), hz: HZ},
        }),
      )
    }
    if (contenders.length > 1) {
      const ratio = median(contenders[0].runs.map((r, i) => r.total / Math.max(1e-9, contenders[1].runs[i].total)))
      rows.push(row('cast daemon idle against the baseline, same rounds (median of per-round ratios)', {cast: `${ratio.toFixed(2)}×`}))
    }
    const rss = contenders[0].runs.at(-1).rss
    const mb = (k) => `${(k / 1024).toFixed(1)} MB`
    rows.push(
      row('cast daemon idle RSS, start → end (last round)', {
        cast: `${mb(rss[0])} → ${mb(rss[1])}`,
        budget: 'flat (end ≤ start + 10%)',
        met: rss[1] - rss[0] <= Math.max(rss[0] * 0.1, 5 * 1024),
      }),
    )
    return rows
  } finally {
    await tmux?.stop()
    fs.rmSync(work, {force: true, recursive: true})
  }
}

await main(import.meta.url, run)
