/**
 * bench/idle: the watcher at rest. `cast sessions -w --json` runs the ingester over 2,000
 * transcripts; once it is up and nothing changes, its CPU (utime + stime from /proc/<pid>/stat)
 * and RSS (/proc/<pid>/status) are sampled every second. Budget: < 1% of one core, flat memory.
 *
 *   node bench/idle.js [--files 10000] [--seconds 60] [--settle 5]
 */
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {fmtInt, main, median, parseArgs, row, sleep, tempDir} from './lib/common.js'
import {startWatcher, watchedCorpus} from './lib/watched.js'

const DEFAULTS = {files: 10_000, seconds: 60, settle: 5}

function cpuTicks(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
  // Fields after the command name (which may hold spaces) start at ") ".
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return Number(f[11]) + Number(f[12]) // utime, stime (fields 14 and 15)
}

function rssKiB(pid) {
  const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) : NaN
}

export async function run(argv = [], log = console.error) {
  const o = parseArgs(argv, DEFAULTS)
  if (!fs.existsSync('/proc/self/stat')) {
    return [row('watcher idle CPU', {cast: 'n/a', floor: 'needs /proc (Linux)', budget: '< 1% of a core'})]
  }
  const hz = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim()) || 100
  const corpus = watchedCorpus(o.files, log)
  const work = tempDir('idle')
  let w
  try {
    w = await startWatcher(corpus, path.join(work, 'cast'), work, log)
    const pid = w.watcher.child.pid
    await sleep(o.settle * 1000)
    const rss = [rssKiB(pid)]
    const ticks = [cpuTicks(pid)]
    const t0 = performance.now()
    let lines = 0
    w.waitFor(
      () => {
        lines++
        return false
      },
      o.seconds * 1000 + 5000,
    )
    for (let s = 0; s < o.seconds; s++) {
      await sleep(1000)
      rss.push(rssKiB(pid))
      ticks.push(cpuTicks(pid))
    }
    const secs = (performance.now() - t0) / 1000
    const cpu = ((ticks[ticks.length - 1] - ticks[0]) / hz / secs) * 100
    // The steady rate: the median over 5-second windows (a one-off GC after start-up shows in the whole-window figure only).
    const windows = []
    for (let i = 5; i < ticks.length; i += 5) windows.push(((ticks[i] - ticks[i - 5]) / hz / 5) * 100)
    const steady = windows.length > 0 ? median(windows) : cpu
    const mb = (k) => `${(k / 1024).toFixed(1)} MB`
    const start = rss[0]
    const end = rss[rss.length - 1]
    const max = Math.max(...rss)
    log(
      `idle: ${secs.toFixed(0)} s after a ${o.settle} s settle: cpu ${cpu.toFixed(2)}% of one core over the window (5-s windows: ${windows.map((x) => x.toFixed(1)).join(' ')} %; median ${steady.toFixed(2)}%), RSS start ${mb(start)} end ${mb(end)} max ${mb(max)}, ${lines} stream lines (expected 0)`,
    )
    // Flat: the end within 10% (or 5 MB) of the start.
    const flat = end - start <= Math.max(start * 0.1, 5 * 1024)
    return [
      row(`watcher idle CPU, ${fmtInt(corpus.files)} watched files, ${secs.toFixed(0)} s`, {
        cast: `${cpu.toFixed(2)}% of a core (steady ${steady.toFixed(2)}%)`,
        budget: '< 1% of a core',
        met: cpu < 1,
        detail: {cpuPercent: cpu, steadyPercent: steady, windows, seconds: secs, hz},
      }),
      row(`watcher idle RSS, start → end (max)`, {
        cast: `${mb(start)} → ${mb(end)} (${mb(max)})`,
        budget: 'flat (end ≤ start + 10%)',
        met: flat,
        detail: {rssKiB: rss},
      }),
    ]
  } finally {
    await w?.watcher.stop()
    fs.rmSync(work, {force: true, recursive: true})
  }
}

await main(import.meta.url, run)
