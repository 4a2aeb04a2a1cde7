/**
 * What a session holds, through the CLI as a person uses it: real Claude Code 2.1.328 files (a
 * parent transcript and its background subagent, test/fixtures/claude-code/real-2.1.328) in a
 * HOME of the test's own; `cast sessions --json` sums the tree, `--columns` shows it, `cast
 * explain --json` has the holds section, a bad column is a usage error.
 */
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {json, makeHome, runCast, type TempHome} from '../helpers/cli.js'

const REAL = fileURLToPath(new URL('../fixtures/claude-code/real-2.1.328/', import.meta.url))
const SID = '089dca1e-c736-47ba-98b5-f68d60bdbe3b'
let h: TempHome
beforeEach(() => {
  h = makeHome()
  const proj = path.join(h.home, '.claude', 'projects', '-tmp-project')
  fs.mkdirSync(path.join(proj, SID, 'subagents'), {recursive: true})
  fs.copyFileSync(path.join(REAL, 'subagent-full.jsonl'), path.join(proj, `${SID}.jsonl`))
  for (const f of fs.readdirSync(path.join(REAL, 'subagent')))
    fs.copyFileSync(path.join(REAL, 'subagent', f), path.join(proj, SID, 'subagents', f))
})
afterEach(() => h.cleanup())

describe('what a session holds, in the CLI', () => {
  it('the row carries the tree usage (parent 3 requests + subagent 1, 100 in and 12 out each); explain splits own and tree', async () => {
    const list = json<{sessions: {native_id: string; usage: unknown; changed_files: number; park: unknown; id: string}[]}>(
      await runCast(['sessions', '--json', '--all'], {env: h.env}),
    )
    const row = list.sessions.find((s) => s.native_id === SID)!
    expect(row.usage).toEqual({cache_read: 0, cache_write: 0, input: 400, output: 48, total: 448})
    expect(row.changed_files).toBe(0)
    expect(row.park).toBeNull()

    const explain = json<{holds: {own_usage: unknown; usage: unknown; subagents: {title: string; state: string}[]; models: string[]}}>(
      await runCast(['explain', row.id, '--json'], {env: h.env}),
    )
    expect(explain.holds.own_usage).toEqual({cache_read: 0, cache_write: 0, input: 300, output: 36, total: 336})
    expect(explain.holds.usage).toEqual(row.usage)
    expect(explain.holds.subagents).toMatchObject([{title: 'slow helper'}])
    expect(explain.holds.models).toEqual(['mock-model'])
  })

  it('--columns adds a line per row; an unknown column is exit 2 with one line naming the list', async () => {
    const r = await runCast(['sessions', '--all', '--columns', 'tokens,subagents'], {env: h.env})
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('tokens 448: 400 in, 48 out, 0 cache read, 0 cache write  ·  1 subagent')
    const bad = await runCast(['sessions', '--columns', 'cost'], {env: h.env})
    expect(bad.code).toBe(2)
    expect(bad.stderr.trim().split('\n')[0]).toBe(
      'cast: Unknown column "cost": choose from phase, tokens, files, tools, background, models, subagents.',
    )
  })
})
