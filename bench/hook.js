/**
 * bench/hook: wall time of the hook command, `bin/cast-hook claude_code` with a typical
 * PreToolUse payload on stdin, against `sh -c 'cat >/dev/null'` (a shell that reads its stdin
 * and exits: the floor any hook command pays). Budget: < 100 ms (checked at p95).
 *
 *   node bench/hook.js [--runs 60]
 */
import fs from 'node:fs'
import path from 'node:path'

import {HOOK, baseEnv, fmtMs, main, median, parseArgs, percentile, row, sideBySide, tempDir, timeRun} from './lib/common.js'

const DEFAULTS = {runs: 60}

export async function run(argv = [], log = console.error) {
  const o = parseArgs(argv, DEFAULTS)
  const work = tempDir('hook')
  try {
    const env = baseEnv({HOME: work, CAST_HOME: path.join(work, 'cast')})
    const payload = JSON.stringify({
      session_id: 'a1b2c3d4-0000-4000-8000-000000000001',
      transcript_path: `${work}/.claude/projects/-home-dev-src-api/a1b2c3d4-0000-4000-8000-000000000001.jsonl`,
      cwd: '/home/dev/src/api',
      permission_mode: 'default',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: {command: 'npm test -- --run parser', description: 'Run the parser tests'},
      tool_use_id: 'toolu_01ABCDEF',
    })
    const times = sideBySide(
      {
        hook: () => timeRun(HOOK, ['claude_code'], {env, input: payload}),
        floor: () => timeRun('sh', ['-c', 'cat >/dev/null'], {env, input: payload}),
      },
      {runs: o.runs, warmup: 3},
    )
    const spooled = fs.readdirSync(path.join(work, 'cast', 'spool')).filter((f) => f.endsWith('.json')).length
    const h50 = median(times.hook)
    const h95 = percentile(times.hook, 95)
    const f50 = median(times.floor)
    const f95 = percentile(times.floor, 95)
    log(
      `hook: ${times.hook.length} timed runs (${spooled} payloads spooled in all): median ${fmtMs(h50)}, p95 ${fmtMs(h95)}; floor median ${fmtMs(f50)}, p95 ${fmtMs(f95)}`,
    )
    return [
      row(`hook command (cast-hook claude_code), median / p95 of ${times.hook.length}`, {
        cast: `${fmtMs(h50)} / ${fmtMs(h95)}`,
        floor: `sh -c 'cat >/dev/null' ${fmtMs(f50)} / ${fmtMs(f95)}`,
        ratio: h50 / f50,
        budget: '< 100 ms',
        met: h95 < 100,
        detail: {times},
      }),
    ]
  } finally {
    fs.rmSync(work, {force: true, recursive: true})
  }
}

await main(import.meta.url, run)
