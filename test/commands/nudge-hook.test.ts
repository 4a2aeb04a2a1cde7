/**
 * bin/cast-hook's nudge (issue 14, docs/hooks.md), run as the agents run it: a payload on stdin,
 * CAST_NUDGE=1 in the command. Payload shapes are the ones Claude Code 2.1.328 and Codex 0.169
 * sent in the conformance runs. Also the hook's wall time (recorded, for docs/hooks.md).
 */
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, describe, expect, it} from 'vitest'

import {AGENT_GUIDANCE, NUDGE_REASON, setDeclaredMark, writePresenceNotice} from '../../src/lib/ingest/turn-marks.js'

const HOOK = fileURLToPath(new URL('../../bin/cast-hook', import.meta.url))
const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, {force: true, recursive: true})
})

function home(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-nudge-hook-'))
  dirs.push(d)
  return path.join(d, 'cast')
}

function run(castHome: string, payload: Record<string, unknown>, nudge = true, agent = 'claude_code'): string {
  const env: Record<string, string> = {CAST_HOME: castHome, PATH: '/usr/bin:/bin'}
  if (nudge) env['CAST_NUDGE'] = '1'
  const r = spawnSync(HOOK, [agent], {env, input: JSON.stringify(payload)})
  expect(r.status).toBe(0)
  expect(String(r.stderr)).toBe('')
  return String(r.stdout)
}

const stop = (extra: Record<string, unknown> = {}) => ({
  hook_event_name: 'Stop',
  last_assistant_message: 'Done.',
  session_id: 'sess-1',
  stop_hook_active: false,
  ...extra,
})
const prompt = {hook_event_name: 'UserPromptSubmit', prompt: 'next', session_id: 'sess-1'}

describe('bin/cast-hook: the nudge', () => {
  it("answers an undeclared Stop once, in the agents' shape, and spools every payload", () => {
    const h = home()
    const first = JSON.parse(run(h, stop())) as {decision: string; reason: string}
    expect(first).toEqual({decision: 'block', reason: NUDGE_REASON})
    expect(run(h, stop())).toBe('')
    expect(fs.readdirSync(path.join(h, 'spool')).filter((f) => f.endsWith('.json'))).toHaveLength(2)
  })

  it('a new prompt starts a new turn: the next undeclared Stop is nudged again', () => {
    const h = home()
    expect(run(h, stop())).not.toBe('')
    run(h, prompt)
    expect(run(h, stop())).not.toBe('')
  })

  it('no nudge: declared turn, continuation, subagent, background work, a question, nudge off', () => {
    const h = home()
    setDeclaredMark({CAST_HOME: h}, 'claude_code', 'sess-1', true)
    expect(run(h, stop())).toBe('')
    expect(run(h, stop({session_id: 's2', stop_hook_active: true}))).toBe('')
    expect(run(h, stop({agent_id: 'a1', session_id: 's3'}))).toBe('')
    expect(run(h, stop({background_tasks: [{id: 'b1', status: 'running', type: 'shell'}], session_id: 's4'}))).toBe('')
    expect(run(h, stop({last_assistant_message: 'Blue or red?\n', session_id: 's5'}))).toBe('')
    expect(run(h, stop({session_id: 's6'}), false)).toBe('')
    // A declaration made in an earlier turn does not cover the next one.
    run(h, prompt)
    expect(run(h, stop())).not.toBe('')
  })

  it('SessionStart adds the guidance; a presence notice reaches each session once', () => {
    const h = home()
    const start = JSON.parse(run(h, {hook_event_name: 'SessionStart', session_id: 'sess-1'})) as {
      hookSpecificOutput: {hookEventName: string; additionalContext: string}
    }
    expect(start.hookSpecificOutput).toEqual({additionalContext: AGENT_GUIDANCE, hookEventName: 'SessionStart'})
    writePresenceNotice({CAST_HOME: h}, {id: '42', text: 'cast: ana is "away".'})
    const told = JSON.parse(run(h, prompt)) as {hookSpecificOutput: {additionalContext: string}}
    expect(told.hookSpecificOutput.additionalContext).toBe('cast: ana is "away".')
    expect(run(h, prompt)).toBe('')
    expect(run(h, {...prompt, session_id: 'other'}, true, 'codex')).toContain('ana is')
  })

  it('stays fast: wall time of a nudged Stop (median and p95 over 40 runs, printed for docs/hooks.md)', () => {
    const h = home()
    const times: number[] = []
    for (let i = 0; i < 40; i++) {
      const t0 = process.hrtime.bigint()
      run(h, stop({session_id: `t${i}`}))
      times.push(Number(process.hrtime.bigint() - t0) / 1e6)
    }

    times.sort((a, b) => a - b)
    console.log(`cast-hook nudged Stop: median ${times[20]!.toFixed(1)} ms, p95 ${times[38]!.toFixed(1)} ms`)
    expect(times).toHaveLength(40)
  })
})
