/**
 * bench/index: a cold index of a large corpus of realistic Claude Code transcripts and Codex
 * rollouts (generated, deterministic), timed as `cast sessions --json --all` (every file read
 * before it answers; without --all the inbox reads the recent files and leaves the rest to a
 * background pass) with a fresh CAST_HOME and HOME at the corpus, against
 *   - a bare Node script that reads every file and JSON-parses every line (budget ≤ 1.2×, issue 27), and
 *   - ccusage (`ccusage session --json --offline`, CLAUDE_CONFIG_DIR/CODEX_HOME at the same
 *     corpus; cast must be faster);
 * then checks that the store it wrote (read on two threads) equals a single-threaded index of the
 * same corpus; then a no-op resync: `cast sessions --json` again with nothing changed, against a
 * bare script that stats every file and reads the store's rows.
 *
 *   node bench/index.js [--mb 200] [--files 2000] [--codex 0.2] [--runs 3] [--ccusage true]
 *   node bench/index.js --mb 500          (issue 7's size)
 */
import fs from 'node:fs'
import path from 'node:path'

import {
  BARE,
  NOW,
  REPO,
  ROOT,
  baseEnv,
  cpuRatioOf,
  cachedCorpus,
  dirBytes,
  fmtInt,
  fmtMs,
  main,
  median,
  parseArgs,
  row,
  runCast,
  sideBySide,
  tempDir,
  timeRun,
} from './lib/common.js'
import {GEN_VERSION, generateCorpus} from './lib/gen.js'
import {sameStore} from './lib/same-store.js'
import {profileTop} from './lib/profile.js'

const DEFAULTS = {mb: 1000, files: 5000, codex: 0.2, runs: 3, seed: 7, ccusage: true, resyncRuns: 7}

export function indexCorpus(o, log) {
  const name = `index-${o.mb}mb-${o.files}f-${o.codex}c-${o.seed}`
  const c = cachedCorpus(name, {mb: o.mb, files: o.files, codex: o.codex, seed: o.seed, v: GEN_VERSION}, (dir) => {
    log(`index: generating ${o.mb} MB in ${fmtInt(o.files)} files under ${dir} …`)
    const g = generateCorpus(path.join(dir, 'home'), {files: o.files, mb: o.mb, seed: o.seed, codexShare: o.codex, now: NOW})
    return {
      bytes: g.bytes,
      files: g.files,
      sessions: g.sessions.length,
      claude: g.sessions.filter((s) => s.agent === 'claude_code').length,
      codex: g.sessions.filter((s) => s.agent === 'codex').length,
    }
  })
  log(
    `index: corpus ${c.cached ? '(cached) ' : ''}${(c.bytes / 2 ** 20).toFixed(0)} MB, ${fmtInt(c.files)} transcript files (${fmtInt(c.claude)} Claude Code sessions, ${fmtInt(c.codex)} Codex rollouts)${c.cached ? '' : `, built in ${fmtMs(c.buildMs)}`}`,
  )
  return c
}

function ccusageBin() {
  for (const root of [REPO, ROOT]) {
    const p = path.join(root, 'node_modules', '.bin', 'ccusage')
    if (fs.existsSync(p)) return p
  }
  return null
}

export async function run(argv = [], log = console.error) {
  const o = parseArgs(argv, DEFAULTS)
  const corpus = indexCorpus(o, log)
  const home = path.join(corpus.dir, 'home')
  const roots = [path.join(home, '.claude', 'projects'), path.join(home, '.codex', 'sessions')]
  const onDisk = dirBytes(home)
  const work = tempDir('index')
  const castHome = path.join(work, 'cast')
  const cache = path.join(work, 'cache')
  const env = baseEnv({
    HOME: home,
    CAST_HOME: castHome,
    CAST_NOW: new Date(NOW).toISOString(),
    XDG_CONFIG_HOME: path.join(work, 'config'),
    XDG_CACHE_HOME: cache,
  })
  const rows = []
  try {
    const bin = o.ccusage ? ccusageBin() : null
    let ccusageNote = null
    const ccEnv = {...env, CLAUDE_CONFIG_DIR: path.join(home, '.claude'), CODEX_HOME: path.join(home, '.codex')}
    const contenders = {
      cast: () => runCast(['sessions', '--json', '--all'], env),
      bare: () => timeRun(process.execPath, [path.join(BARE, 'read-parse.js'), ...roots], {env}),
    }
    if (bin) {
      // Does it run here, offline, over this corpus?
      const probe = timeRun(bin, ['session', '--json', '--offline'], {env: ccEnv, capture: true, allowFail: true})
      if (probe.code === 0) {
        const data = JSON.parse(probe.stdout)
        const n = Array.isArray(data.session) ? data.session.length : Array.isArray(data.sessions) ? data.sessions.length : '?'
        log(`index: ccusage ${timeRun(bin, ['--version'], {env: ccEnv, capture: true}).stdout.trim()} reports ${n} sessions on this corpus`)
        contenders.ccusage = () => timeRun(bin, ['session', '--json', '--offline'], {env: ccEnv})
      } else {
        ccusageNote = `ccusage failed here (exit ${probe.code}): ${probe.stderr.trim().split('\n')[0]}`
      }
    } else {
      ccusageNote = o.ccusage ? 'ccusage is not installed (npm install --save-dev ccusage)' : 'skipped (--ccusage false)'
    }
    if (ccusageNote) log(`index: ${ccusageNote}`)

    const bare = JSON.parse(timeRun(process.execPath, [path.join(BARE, 'read-parse.js'), ...roots], {env, capture: true}).stdout)
    log(`index: the bare read sees ${fmtInt(bare.files)} files, ${fmtInt(bare.lines)} lines, ${(bare.bytes / 2 ** 20).toFixed(0)} MB`)
    const times = sideBySide(contenders, {
      runs: o.runs,
      warmup: 1,
      before: (name) => {
        // Cold means cold for each tool: no store for cast, no cache for ccusage.
        if (name === 'cast') fs.rmSync(castHome, {force: true, recursive: true})
        if (name === 'ccusage') fs.rmSync(cache, {force: true, recursive: true})
      },
    })
    for (const [k, v] of Object.entries(times))
      log(`index: cold ${k}: ${v.map((t) => t.toFixed(0)).join(' ')} ms wall; median CPU ${fmtMs(median(times.cpu[k]))}`)

    // The store after a cold index: what did cast find?
    fs.rmSync(castHome, {force: true, recursive: true})
    const cold = runCast(['sessions', '--json', '--all'], env, {capture: true})
    const listing = JSON.parse(cold.stdout)
    log(`index: cast indexed ${fmtInt(listing.sessions.length)} sessions (subagents folded under their parents) in ${fmtMs(cold.ms)}`)
    const same = await sameStore(castHome, path.join(work, 'inline'), home, NOW, env)
    log(
      `index: the two-thread index ${same.same ? 'equals' : 'DIFFERS from'} a one-thread index (${fmtInt(same.sessions)} sessions, ${fmtInt(same.files)} files: facts, states, offsets, parse errors, parser states)${same.diff ? `: ${same.diff}` : ''}`,
    )

    const castMs = median(times.cast)
    const bareMs = median(times.bare)
    const mb = (onDisk.bytes / 2 ** 20).toFixed(0)
    const ratio = castMs / bareMs
    const ccMiss = times.ccusage ? castMs >= median(times.ccusage) : false
    // A miss records where the time went: one cold `--cpu-prof` run of the same command (bench/lib/profile.js).
    let profile = null
    if (ratio > 1.2 || ccMiss) {
      fs.rmSync(castHome, {force: true, recursive: true})
      profile = profileTop(['sessions', '--json', '--all'], env)
    }
    rows.push(
      row(`cold index, ${mb} MB / ${fmtInt(bare.files)} files (Claude Code + Codex)`, {
        cast: fmtMs(castMs),
        floor: `bare read + JSON.parse ${fmtMs(bareMs)}`,
        ratio,
        cpuRatio: cpuRatioOf(times, 'cast', 'bare'),
        budget: '≤ 1.20×',
        met: ratio <= 1.2,
        detail: {
          profile,
          sameAsOneThread: same.same,
          times,
          cpu: times.cpu,
          corpus: {bytes: onDisk.bytes, files: bare.files, lines: bare.lines},
          sessions: listing.sessions.length,
          mbPerSec: onDisk.bytes / 2 ** 20 / (castMs / 1000),
        },
      }),
    )
    if (times.ccusage) {
      const ccMs = median(times.ccusage)
      rows.push(
        row(`cold index vs ccusage, same ${mb} MB corpus`, {
          cast: fmtMs(castMs),
          floor: `ccusage session --json ${fmtMs(ccMs)}`,
          ratio: castMs / ccMs,
          cpuRatio: cpuRatioOf(times, 'cast', 'ccusage'),
          budget: 'cast faster (< 1×)',
          met: castMs < ccMs,
          detail: {profile, times: {cast: times.cast, ccusage: times.ccusage}, cpu: {cast: times.cpu.cast, ccusage: times.cpu.ccusage}},
        }),
      )
    } else {
      rows.push(
        row(`cold index vs ccusage, same ${mb} MB corpus`, {
          cast: fmtMs(castMs),
          floor: ccusageNote,
          budget: 'cast faster (< 1×)',
          met: null,
        }),
      )
    }

    // No-op resync: the store is warm, nothing changed on disk.
    const db = path.join(castHome, 'cast.db')
    const bareEnv = {...env, CAST_BENCH_ROOT: ROOT}
    const resync = sideBySide(
      {
        cast: () => runCast(['sessions', '--json'], env),
        bare: () => timeRun(process.execPath, [path.join(BARE, 'resync.js'), db, ...roots], {env: bareEnv}),
      },
      {runs: o.resyncRuns, warmup: 1},
    )
    log(
      `index: no-op resync cast ${resync.cast.map((t) => t.toFixed(0)).join(' ')} ms; bare ${resync.bare.map((t) => t.toFixed(0)).join(' ')} ms; median CPU cast ${fmtMs(median(resync.cpu.cast))}, bare ${fmtMs(median(resync.cpu.bare))}`,
    )
    const rc = median(resync.cast)
    const rb = median(resync.bare)
    rows.push(
      row(`no-op resync, ${fmtInt(bare.files)} unchanged files (sessions --json)`, {
        cast: fmtMs(rc),
        floor: `bare stat all + read rows ${fmtMs(rb)}`,
        ratio: rc / rb,
        cpuRatio: cpuRatioOf(resync, 'cast', 'bare'),
        detail: {times: resync, cpu: resync.cpu},
      }),
    )
    return rows
  } finally {
    fs.rmSync(work, {force: true, recursive: true})
  }
}

await main(import.meta.url, run)
