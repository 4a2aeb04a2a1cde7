/**
 * The profile that explains a missed budget: one run of the CLI under `node --cpu-prof`, reduced
 * to the functions with the most self time. A benchmark that misses its budget records it in its
 * row (`detail.profile`), and the budget summary (bench/lib/budgets.js) prints it.
 */
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {BIN, ROOT, tempDir} from './common.js'

/**
 * Run `node --cpu-prof bin/run.js ...args` once in `env` and return the `top` functions by self
 * time: {fn, at, ms, pct} (`at`: file:line, shortened to dist/… or node_modules/…).
 */
export function profileTop(args, env, {top = 8, bin = BIN} = {}) {
  const dir = tempDir('profile')
  try {
    const r = spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, bin, ...args], {env, stdio: 'ignore'})
    if (r.error) return null
    const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))
    if (!file) return null
    return topSelf(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')), top)
  } finally {
    fs.rmSync(dir, {force: true, recursive: true})
  }
}

/** The functions of a .cpuprofile with the most self time (idle time left out). */
export function topSelf(profile, top) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const self = new Map()
  let total = 0
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i] ?? 0
    const node = byId.get(profile.samples[i])
    if (!node || node.callFrame.functionName === '(idle)') continue
    total += dt
    const f = node.callFrame
    const at = f.url ? `${shortUrl(f.url)}:${f.lineNumber + 1}` : ''
    const key = `${f.functionName || '(anonymous)'}\0${at}`
    self.set(key, (self.get(key) ?? 0) + dt)
  }

  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([key, us]) => {
      const [fn, at] = key.split('\0')
      return {at, fn, ms: Math.round(us / 100) / 10, pct: total > 0 ? Math.round((us / total) * 1000) / 10 : 0}
    })
}

function shortUrl(url) {
  const m = /\/(dist|node_modules)\/(.*)$/.exec(url)
  if (m) return `${m[1]}/${m[2]}`
  return url.startsWith('node:') ? url : path.relative(ROOT, url.replace(/^file:\/\//, ''))
}

/** One line: "22.1% (garbage collector) · 9.4% treeHolds dist/core/store/holds.js:10 · …". */
export function profileLine(top) {
  if (!top || top.length === 0) return null
  return top.map((t) => `${t.pct.toFixed(1)}% ${t.fn}${t.at ? ` ${t.at}` : ''}`).join(' · ')
}
