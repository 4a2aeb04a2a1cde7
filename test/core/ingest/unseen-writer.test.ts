/**
 * "No process holds it" is a crash only where the writer would be visible (src/core/ingest/
 * recompose.ts unseenWriter): a Codex rollout with an open turn that no process on this machine
 * holds reads dead when its folder is here, and not when its folder is not on this machine (a
 * Codex in a container, another PID namespace or another host sharing ~/.codex); explain says which.
 */
import fs from 'node:fs'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {json, makeHome, runCast, type TempHome, writeFile} from '../../helpers/cli.js'

const FIXTURE = 'test/fixtures/codex/real-0.169.0/exec-plain/rollout-2026-12-01T09-46-17-01a230ff-7472-7583-a750-3ff97f7feb64.jsonl'
const FIXTURE_ID = '01a230ff-7472-7583-a750-3ff97f7feb64'
const FIXTURE_CWD = '/tmp/cast-cx-fx-CtnWMC/work'

describe('a Codex rollout no process holds', () => {
  let h: TempHome

  beforeEach(() => {
    h = makeHome()
  })

  afterEach(() => h.cleanup())

  /** The real rollout cut after the user's prompt (an open turn), as thread `id` in folder `cwd`, a minute old. */
  const rollout = (id: string, cwd: string): void => {
    const at = new Date(Date.now() - 60_000).toISOString()
    const lines = fs
      .readFileSync(FIXTURE, 'utf8')
      .split('\n')
      .slice(0, 9)
      .map((l) =>
        l
          .replaceAll(FIXTURE_ID, id)
          .replaceAll(FIXTURE_CWD, cwd)
          .replaceAll(/2026-12-01T09:46:1\d\.\d+Z/g, at),
      )
    const day = at.slice(0, 10).replaceAll('-', '/')
    writeFile(path.join(h.home, '.codex', 'sessions', day, `rollout-2026-12-01T09-46-17-${id}.jsonl`), lines.join('\n') + '\n')
  }

  it('reads dead when its folder is on this machine, and not when it is not; explain says which, never "process 0"', async () => {
    const here = path.join(h.dir, 'work')
    fs.mkdirSync(here)
    const local = '01a230ff-0000-7000-8000-00000000a001'
    const remote = '01a230ff-0000-7000-8000-00000000a002'
    rollout(local, here)
    rollout(remote, '/workspace/container-only/app')

    const a = json(await runCast(['explain', local, '--json'], {env: h.env}))
    const b = json(await runCast(['explain', remote, '--json'], {env: h.env}))
    const human = await runCast(['explain', remote], {env: h.env})
    const dead = await runCast(['explain', local], {env: h.env})

    expect([a.state, a.reason]).toEqual(['needs_input', 'dead'])
    expect([b.state, b.reason]).toEqual(['working', 'turn_pending'])
    const proc = b.facts.find((f: {fact: string}) => f.fact === 'process')
    expect(proc.value).toBe(null)
    expect(proc.source.ref).toContain('/workspace/container-only/app is not on this machine')
    expect(human.stdout).toContain('not read as a crash')
    expect(human.stdout).not.toContain('process 0')
    expect(dead.stdout).toMatch(/6\. no process \(no process holds .*\): read as a crash with \d+ messages?/)
    expect(dead.stdout).not.toContain('process 0')
  })
})
