/**
 * CPU of a process and everything it runs, from /proc (Linux): a process's own time (utime +
 * stime), the time of the children it has waited for (cutime + cstime: a `tmux` it ran with
 * spawnSync, reaped), and the time of its live descendants (found through
 * /proc/<pid>/task/<tid>/children), each with their own reaped children. Summed this way the
 * figure only grows: a child counted live in one sample is counted in its parent's cutime once
 * reaped.
 */
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'

export const HZ = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim()) || 100

/** utime, stime, cutime, cstime of one process (clock ticks), or null when it is gone. */
export function statTicks(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name (which may hold spaces) start at ") ".
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return {own: Number(f[11]) + Number(f[12]), reaped: Number(f[13]) + Number(f[14])}
  } catch {
    return null
  }
}

function childrenOf(pid) {
  const out = []
  let tasks = []
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`)
  } catch {
    return out
  }
  for (const t of tasks) {
    try {
      for (const c of fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').split(' ')) if (c.trim()) out.push(Number(c))
    } catch {
      // gone
    }
  }
  return out
}

/** Ticks of `pid` split into its own, its reaped children's and its live descendants'. */
export function treeTicks(pid) {
  const top = statTicks(pid)
  if (top === null) return null
  let live = 0
  const seen = new Set([pid])
  const todo = childrenOf(pid)
  while (todo.length > 0) {
    const c = todo.pop()
    if (seen.has(c)) continue
    seen.add(c)
    const t = statTicks(c)
    if (t === null) continue
    live += t.own + t.reaped
    todo.push(...childrenOf(c))
  }
  return {own: top.own, children: top.reaped + live, total: top.own + top.reaped + live}
}

/** The 1-, 5- and 15-minute load averages. */
export function loadAvg() {
  try {
    return fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number)
  } catch {
    return [NaN, NaN, NaN]
  }
}
