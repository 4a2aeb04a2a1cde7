/**
 * Issue 5's "done when": examples/walkthrough.sh runs seed 000's walkthrough against the built
 * CLI, and every step lands where the seed says. The script checks each step itself; this test
 * runs it, reads its report, and then checks the store it leaves behind independently.
 */
import {execFile} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {Store} from '../../src/core/store/store.js'
import {BIN} from '../helpers/cli.js'

const SCRIPT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../examples/walkthrough.sh')
const SESSION = '5e55a0de-0000-4000-8000-00000000c0de'

describe('examples/walkthrough.sh', () => {
  let dir: string
  let out = ''
  let code: number | null = null

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-walk-'))
    await new Promise<void>((resolve) => {
      execFile(
        'sh',
        [SCRIPT],
        {cwd: dir, env: {CAST_BIN: BIN, PATH: process.env.PATH ?? '/usr/bin:/bin', WALK_DIR: path.join(dir, 'walk')}, timeout: 120_000},
        (error, stdout, stderr) => {
          out = stdout + stderr
          code = error ? ((error as {code?: number}).code ?? 1) : 0
          resolve()
        },
      )
    })
  }, 150_000)

  afterAll(() => fs.rmSync(dir, {force: true, recursive: true}))

  it('runs to the end', () => {
    if (!out.includes('walkthrough: every step as expected')) console.log(out)
    expect(out).toContain('walkthrough: every step as expected')
    expect(code).toBe(0)
    expect(out).not.toContain('✗')
  })

  it.each([
    ['1. A Claude Code session asks a question → Questions', ['✓ bucket: questions', '✓ state: needs_input:question']],
    ['2. Not now: snooze it for an hour → Snoozed', ['✓ bucket: snoozed', '✓ state: dormant:snoozed']],
    ['3. An hour later cron runs the sweep → Needs Input', ['✓ a second sweep wakes nothing: 0', '✓ state: needs_input:snooze_expired']],
    [
      '4. Hand it to Ana → it leaves my inbox and lands in hers, question included',
      ['✓ in my inbox: no', "✓ in Ana's inbox: questions", '✓ the question shows: 1', '✓ marked as run by me: 1'],
    ],
    ['5. Ana kills it → Killed, one "gone" line on the stream', ['✓ gone lines: 1', '✓ bucket: killed', '✓ agent process group: gone']],
    ['6. Ana undoes it → the card is back, the agent stays stopped', ['✓ bucket: questions', '✓ agent process group: gone']],
  ])('step %s', (title, checks) => {
    const start = out.indexOf(`== ${title}`)
    expect(start).toBeGreaterThanOrEqual(0)
    const end = out.indexOf('\n== ', start + 1)
    const step = out.slice(start, end < 0 ? undefined : end)
    for (const c of checks) expect(step).toContain(c)
  })

  it('leaves a transitions log with each step once, and exactly one gone line', () => {
    const store = new Store(path.join(dir, 'walk', 'cast'))
    try {
      const id = store.loadSessions().find((r) => r.nativeId === SESSION)!.id
      const log = store
        .transitionsSince(0, 10_000)
        .filter((t) => t.sessionId === id)
        .map((t) => `${t.event} ${t.to}:${t.reason} [${t.bucket}]`)
      expect(log).toEqual([
        'new needs_input:question [questions]',
        'transition dormant:snoozed [snoozed]',
        'transition needs_input:snooze_expired [questions]',
        'transition needs_input:question [questions]',
        'gone idle:killed [killed]',
        'transition needs_input:question [questions]',
      ])
      const row = store.loadSessions([id])[0]!
      expect(row.records.owners).toEqual(['ana@example.com'])
      expect(row.records.killedAt).toBeNull()
      expect(row.facts.process?.alive).toBe(false)
    } finally {
      store.close()
    }
  })
})
