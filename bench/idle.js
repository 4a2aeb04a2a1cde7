/**
 * bench/idle: the watcher at rest. `cast sessions -w --json` runs the ingester over 2,000
 * transcripts; once it is up and nothing changes, its CPU (utime + stime from /proc/<pid>/stat)
 * and RSS (/proc/<pid>/status) are sampled every second. Budget: < 1% of one core, flat memory.
 *
 *   node bench/idle.js [--files 2000] [--seconds 60]
 */
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {fmtInt, main, parseArgs, row, sleep, tempDir} from './lib/common.js'
import {startWatcher, watchedCorpus} from './lib/watched.js'

const DEFAULTS = {files: 2000, seconds: 60}

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
    await sleep(2000)
    const rss = [rssKiB(pid)]
    const c0 = cpuTicks(pid)
    const t0 = performance.now()
    const lines0 = Date.now()
    let lines = 0
    const count = () => {
      lines++
    }
    w.waitFor((j) => (count(j), false), o.seconds * 1000 + 5000)
    for (let s = 0; s < o.seconds; s++) {
      await sleep(1000)
      rss.push(rssKiB(pid))
    }
    const secs = (performance.now() - t0) / 1000
    const cpu = ((cpuTicks(pid) - c0) / hz / secs) * 100
    const mb = (k) => `${(k / 1024).toFixed(1)} MB`
    const start = rss[0]
    const end = rss[rss.length - 1]
    const max = Math.max(...rss)
    log(`idle: ${secs.toFixed(0)} s, cpu ${cpu.toFixed(2)}% of one core, RSS start ${mb(start)} end ${mb(end)} max ${mb(max)}, ${lines} stream lines (expected 0) since ${new Date(lines0).toISOString()}`)
    // Flat: the end within 10% (or 5 MB) of the start.
    const flat = end - start <= Math.max(start * 0.1, 5 * 1024)
    return [
      row(`watcher idle CPU, ${fmtInt(corpus.files)} watched files, ${secs.toFixed(0)} s`, {
        cast: `${cpu.toFixed(2)}% of a core`,
        budget: '< 1% of a core',
        met: cpu < 1,
        detail: {cpuPercent: cpu, seconds: secs, hz},
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
