/**
 * bench/state: `cast state TEXT` (an agent declares its state every turn) as a whole process, the
 * way an agent's shell runs it. Budgets (DESIGN §7): ≤ 2× `node -e 0` while a live ingester
 * (cast daemon) holds the store, ≤ 4× without one. Measured side by side in the same run against
 * `node -e 0` (rounds interleaved), over the store bench/list.js builds (cast's adapter and
 * Store), with `--sessions` sessions, the session named each way an agent names it:
 * - CAST_SESSION (its cast id);
 * - the agent's own variable (CLAUDE_SESSION_ID, its native id): the generated sessions have no
 *   live process, so the fast path also walks the caller's ancestry for the agent (none here);
 * - the process tree: no variable, the session's process claim names this bench process, the
 *   parent of every `cast state` it runs (a claim as a registry or lock file gives one). With a
 *   daemon only: without one the stored claims may be stale, so the route goes through the
 *   command (a full sync).
 * With a daemon every route must go through its socket (src/lib/state/state-socket.ts: the probe
 * test/helpers/oclif-probe.mjs says "socket", neither oclif nor better-sqlite3 loaded), without
 * one through the local fast path ("fast"); a route that does not is recorded, not timed.
 * The generated sessions have no files: without a daemon the fast path stats none and syncs
 * nothing (a session whose transcript changed since the last sync loads the ingester).
 * A missed budget records the profile of one run (bench/lib/profile.js).
 *
 *   node bench/state.js [--sessions 10000] [--runs 11]
 */
import fs from 'node:fs'
import path from 'node:path'

import {
  BIN,
  baseEnv,
  fmtInt,
  fmtMs,
  importDist,
  main,
  median,
  parseArgs,
  row,
  runCast,
  sideBySide,
  sleep,
  tempDir,
  timeRun,
} from './lib/common.js'
import {profileTop} from './lib/profile.js'
import {buildListStore} from './list.js'
import {spawn} from 'node:child_process'
import os from 'node:os'
import {fileURLToPath} from 'node:url'

const DEFAULTS = {sessions: 10_000, runs: 11, seed: 31}
/** Which path a cast command took (test/helpers/oclif-probe.mjs: oclif, fast or socket). */
const PROBE = fileURLToPath(new URL('../test/helpers/oclif-probe.mjs', import.meta.url))
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
    const claimed = listed.sessions[Math.floor(listed.sessions.length / 3)]
    await claimThisProcess(castHome, claimed)
    const routes = [
      {name: 'named by CAST_SESSION', env: {...env, CAST_SESSION: target.id}, via: 'CAST_SESSION'},
      {name: "named by the agent's variable", env: {...env, CLAUDE_SESSION_ID: target.native_id}, via: 'CLAUDE_SESSION_ID'},
      {name: 'found through the process tree', env, via: 'process tree', daemonOnly: true},
    ]
    const measure = (label, daemonUp) =>
      routes
        .filter((r) => daemonUp || !r.daemonOnly)
        .map((r) => {
          // With a daemon the declaration must go through its socket (the probe: neither oclif nor better-sqlite3 loaded).
          fs.rmSync(probe, {force: true})
          const probed = {...r.env, CAST_TEST_PROBE: probe, NODE_OPTIONS: `--import=${PROBE}`}
          const first = runCast(['state', 'Benchmarking the declaration'], probed, {allowFail: true, capture: true})
          const said = first.stdout.trim()
          const took = fs.existsSync(probe) ? fs.readFileSync(probe, 'utf8').trim() : '?'
          if (!said.includes(`found via ${r.via}`) || took !== (daemonUp ? 'socket' : 'fast')) {
            // Recorded, not timed: the other routes still measure.
            log(`state: ${label}, ${r.name}: exit ${first.code} by the ${took} path, "${said}" ${first.stderr.trim()}`)
            return row(`state, ${fmtInt(count)} sessions, ${label}, ${r.name} (whole process)`, {
              cast: `failed (exit ${first.code})`,
              detail: {stderr: first.stderr},
            })
          }

          log(`state: ${fmtInt(count)} sessions, ${label}, ${r.name}: cast state says "${said}" (the ${took} path)`)
          const t = sideBySide(
            {
              cast: () => runCast(['state', 'Benchmarking the declaration'], r.env),
              node: () => timeRun(process.execPath, ['-e', '0'], {env}),
            },
            {runs: o.runs, warmup: 2},
          )
          const m = {
            cast: median(t.cast),
            node: median(t.node),
            castCpu: median(t.cpu.cast),
            nodeCpu: median(t.cpu.node),
            load: os.loadavg()[0],
          }
          const budget = daemonUp ? WITH_DAEMON : WITHOUT
          const met = m.cast / m.node <= budget
          log(
            `state: ${label}, ${r.name}: ${fmtMs(m.cast)} (node -e 0 ${fmtMs(m.node)}), cpu ${fmtMs(m.castCpu)} vs ${fmtMs(m.nodeCpu)}, load ${m.load.toFixed(1)}`,
          )
          return row(`state, ${fmtInt(count)} sessions, ${label}, ${r.name} (whole process)`, {
            budget: `≤ ${budget}× node -e 0`,
            cast: fmtMs(m.cast),
            cpuRatio: m.castCpu / m.nodeCpu,
            detail: met ? m : {...m, profile: profileTop(['state', 'Benchmarking the declaration'], r.env)},
            floor: `node -e 0 ${fmtMs(m.node)}`,
            met,
            ratio: m.cast / m.node,
          })
        })

    const probe = path.join(dir, 'probe')
    const without = measure('no daemon', false)
    daemon = spawn(process.execPath, [BIN, 'daemon'], {env, stdio: 'ignore'})
    for (let i = 0; i < 120; i++) {
      const up = JSON.parse(runCast(['daemon', 'status', '--json'], env, {capture: true}).stdout).running
      if (up && fs.existsSync(path.join(castHome, 'run', 'state.sock'))) break
      await sleep(250)
    }
    const withD = measure('with cast daemon', true)
    return [...withD, ...without]
  } finally {
    if (daemon) {
      daemon.kill('SIGTERM')
      await new Promise((r) => (daemon.exitCode === null ? daemon.once('exit', r) : r()))
    }
    fs.rmSync(dir, {force: true, recursive: true})
  }
}

/**
 * Give `session` a process claim on this bench process (pid and start time, as a registry file's
 * claim holds them): every `cast state` it spawns then finds it through the process tree.
 */
async function claimThisProcess(castHome, session) {
  const {Store} = await importDist('core/store/store.js')
  const {processStartTime} = await importDist('core/ingest/process-table.js')
  const store = new Store(castHome)
  try {
    const claim = {
      processClaim: {
        heartbeatAt: null,
        pid: process.pid,
        source: {kind: 'registry', ref: 'bench'},
        startedAt: processStartTime(process.pid),
        status: null,
      },
    }
    store.tx(() =>
      store.upsertContribution('bench://claim', session.agent, 'registry', session.native_id, JSON.stringify(claim), Date.now()),
    )
  } finally {
    store.close()
  }
}

await main(import.meta.url, run)
