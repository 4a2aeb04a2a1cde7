/**
 * bench/state: `cast state TEXT` (an agent declares its state every turn) as a whole process, the
 * way an agent's shell runs it, the session named by the agent's own variable. Budgets (DESIGN §7):
 * ≤ 2× `node -e 0` while a live ingester (cast daemon) holds the store, ≤ 4× without one.
 * Measured side by side in the same run against `node -e 0`, over the store bench/list.js builds
 * (cast's adapter and Store), with `--sessions` sessions.
 * The session is named by CAST_SESSION (the fast path, src/lib/cli/state-fast.ts): the generated
 * sessions have no live process, and a session found through an agent's own variable with no live
 * process in the store goes through oclif, which checks the caller's ancestry first.
 *
 *   node bench/state.js [--sessions 10000] [--runs 11]
 */
import fs from 'node:fs'
import path from 'node:path'

import {BIN, baseEnv, fmtInt, fmtMs, main, median, parseArgs, row, runCast, sideBySide, sleep, tempDir, timeRun} from './lib/common.js'
import {buildListStore} from './list.js'
import {spawn} from 'node:child_process'

const DEFAULTS = {sessions: 10_000, runs: 11, seed: 31}
const WITH_DAEMON = 2
const WITHOUT = 4

export async function run(argv = [], log = console.error) {
  const o = parseArgs(argv, DEFAULTS)
  const dir = tempDir('state')
  let daemon = null
  try {
    const castHome = path.join(dir, 'cast')
    const home = path.join(dir, 'home')
    fs.mkdirSync(home, {recursive: true})
    const count = await buildListStore(castHome, o.sessions, o.seed)
    const env = baseEnv({
      HOME: home,
      CAST_HOME: castHome,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      XDG_DATA_HOME: path.join(home, '.local', 'share'),
    })
    const listed = JSON.parse(runCast(['sessions', '--json', '--all'], env, {capture: true}).stdout)
    const target = listed.sessions[Math.floor(listed.sessions.length / 2)]
    const agentEnv = {...env, CAST_SESSION: target.id}
    const declare = () => runCast(['state', 'Benchmarking the declaration'], agentEnv)
    const said = runCast(['state', 'Benchmarking the declaration'], agentEnv, {capture: true}).stdout.trim()
    log(`state: ${fmtInt(count)} sessions: cast state says "${said}"`)
    const without = sideBySide({cast: declare, node: () => timeRun(process.execPath, ['-e', '0'], {env})}, {runs: o.runs, warmup: 2})

    daemon = spawn(process.execPath, [BIN, 'daemon'], {env, stdio: 'ignore'})
    for (let i = 0; i < 120; i++) {
      if (JSON.parse(runCast(['daemon', 'status', '--json'], env, {capture: true}).stdout).running) break
      await sleep(250)
    }
    const withD = sideBySide({cast: declare, node: () => timeRun(process.execPath, ['-e', '0'], {env})}, {runs: o.runs, warmup: 2})
    const m = (t) => ({cast: median(t.cast), node: median(t.node), castCpu: median(t.cpu.cast), nodeCpu: median(t.cpu.node)})
    const a = m(withD)
    const b = m(without)
    log(
      `state: with cast daemon ${fmtMs(a.cast)} (node -e 0 ${fmtMs(a.node)}); without ${fmtMs(b.cast)} (node -e 0 ${fmtMs(b.node)}) (medians of ${o.runs})`,
    )
    return [
      row(`state, ${fmtInt(count)} sessions, with cast daemon (whole process)`, {
        budget: `≤ ${WITH_DAEMON}× node -e 0`,
        cast: fmtMs(a.cast),
        cpuRatio: a.castCpu / a.nodeCpu,
        detail: a,
        floor: `node -e 0 ${fmtMs(a.node)}`,
        met: a.cast / a.node <= WITH_DAEMON,
        ratio: a.cast / a.node,
      }),
      row(`state, ${fmtInt(count)} sessions, no daemon (whole process)`, {
        budget: `≤ ${WITHOUT}× node -e 0`,
        cast: fmtMs(b.cast),
        cpuRatio: b.castCpu / b.nodeCpu,
        detail: b,
        floor: `node -e 0 ${fmtMs(b.node)}`,
        met: b.cast / b.node <= WITHOUT,
        ratio: b.cast / b.node,
      }),
    ]
  } finally {
    if (daemon) {
      daemon.kill('SIGTERM')
      await new Promise((r) => (daemon.exitCode === null ? daemon.once('exit', r) : r()))
    }
    fs.rmSync(dir, {force: true, recursive: true})
  }
}

await main(import.meta.url, run)
