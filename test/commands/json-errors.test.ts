/**
 * Issue 13 point 2: JSON a script can trust. Every error under --json is the documented envelope
 * and nothing else; `code` names the kind; session objects and watch lines carry ask and pane.
 */
import fs from 'node:fs'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {ERROR_KINDS, errorEnvelope, errorKind, parseErrorMessage} from '../../src/lib/cli/errors.js'
import {EXIT} from '../../src/lib/base/exit-codes.js'
import {json, killStarted, makeHome, startCast, type TempHome} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'

/** The whole stdout is one envelope: one line, one key, the four documented fields. */
function envelope(stdout: string): {code: string; exit_code: number; message: string; suggestions: string[]} {
  const lines = stdout.split('\n').filter((l) => l !== '')
  expect(lines).toHaveLength(1)
  const parsed = JSON.parse(lines[0]!)
  expect(Object.keys(parsed)).toEqual(['error'])
  expect(Object.keys(parsed.error).sort()).toEqual(['code', 'exit_code', 'message', 'suggestions'])
  expect(ERROR_KINDS).toContain(parsed.error.code)
  return parsed.error
}

describe('error kinds', () => {
  it('every exit code of the table has its kind name', () => {
    expect(errorKind(EXIT.USAGE)).toBe('usage')
    expect(errorKind(EXIT.NOT_FOUND)).toBe('not_found')
    expect(errorKind(EXIT.AMBIGUOUS)).toBe('ambiguous')
    expect(errorKind(EXIT.REFUSED)).toBe('refused')
    expect(errorKind(EXIT.TIMEOUT)).toBe('timeout')
    expect(errorKind(EXIT.FAILURE)).toBe('failure')
    expect(errorEnvelope('m', 4, ['s'])).toEqual({error: {code: 'ambiguous', exit_code: 4, message: 'm', suggestions: ['s']}})
  })

  it('an oclif parse message loses its colour, gutter and help tail', () => {
    const m = parseErrorMessage(new Error('\u001B[31mNonexistent flag: --bogus\u001B[39m\n › See more help with --help'))
    expect(m).toBe('Nonexistent flag: --bogus')
  })
})

describe('cast under --json', () => {
  let h: TempHome
  let demo: {cast_home: string; home: string; sessions: Array<Record<string, any>>}
  let env: Record<string, string>

  beforeAll(async () => {
    h = makeHome()
    const r = await runCommand(['demo', '--keep', '--json'], {env: {...h.env, TMPDIR: h.dir}})
    expect(r.code).toBe(0)
    demo = json(r)
    env = {...h.env, CAST_HOME: demo.cast_home, HOME: demo.home}
  }, 180_000)

  afterAll(() => {
    killStarted()
    h?.cleanup()
  })

  it('a bad flag prints the envelope only, not oclif configuration', async () => {
    const r = await runCommand(['sessions', '--json', '--bogus'], {env})
    expect(r.code).toBe(2)
    expect(r.stdout.length).toBeLessThan(1000)
    const e = envelope(r.stdout)
    expect(e).toMatchObject({code: 'usage', exit_code: 2})
    expect(e.message).toContain('--bogus')
  })

  it('a bad flag value, a missing argument and an unknown command are usage errors', async () => {
    const bad = await runCommand(['sessions', '--state', 'bogus', '--json'], {env})
    expect(bad.code).toBe(2)
    expect(envelope(bad.stdout).message).toMatch(/bogus.*not a state/)
    const missing = await runCommand(['explain', '--json'], {env})
    expect(missing.code).toBe(2)
    expect(envelope(missing.stdout).code).toBe('usage')
    const typo = await runCommand(['sesions', '--json'], {env})
    expect(typo.code).toBe(2)
    const e = envelope(typo.stdout)
    expect(e.code).toBe('usage')
    expect(e.suggestions.join(' ')).toContain('cast sessions')
  })

  it('not found and refused name their kind, with the exit code of the table', async () => {
    const nf = await runCommand(['explain', 'zzzzzzzz', '--json'], {env})
    expect(nf.code).toBe(3)
    expect(envelope(nf.stdout)).toMatchObject({code: 'not_found', exit_code: 3})
    const asking = demo.sessions.find((s) => s.ask?.kind === 'question')!
    const refused = await runCommand(['send', asking.short_id, 'hello', '--if', 'working', '--json'], {env})
    expect(refused.code).toBe(5)
    expect(envelope(refused.stdout)).toMatchObject({code: 'refused', exit_code: 5})
  })

  it('session objects carry ask {kind, text, tool} and pane', async () => {
    const r = await runCommand(['sessions', '--json'], {env})
    const listing = json(r)
    for (const s of listing.sessions) {
      expect(s).toHaveProperty('ask')
      expect(s).toHaveProperty('pane')
    }

    // As the demo classified them (its stand-in agent processes stop when it ends).
    const approval = demo.sessions.find((s: any) => s.reason === 'approval')!
    expect(approval.ask).toMatchObject({kind: 'approval'})
    expect(approval.ask.tool).toMatch(/^\w+$/)
    expect(approval.ask.text.startsWith(approval.ask.tool)).toBe(true)
    const question = demo.sessions.find((s: any) => s.reason === 'question')!
    expect(question.ask).toEqual({kind: 'question', text: expect.any(String), tool: null})
    const done = demo.sessions.find((s: any) => s.state === 'done')!
    expect(done.ask).toBeNull()
  })

  it('watch lines carry ask and pane like session objects', async () => {
    const watch = startCast(['sessions', '-w', '--json', '--snapshot'], env)
    try {
      const line = JSON.parse(await watch.nextLine(30_000))
      expect(line.event).toBe('snapshot')
      expect(line).toHaveProperty('ask')
      expect(line).toHaveProperty('pane')
      const same = demo.sessions.find((s) => s.id === line.id)
      if (same) expect(line.ask).toEqual(same.ask)
    } finally {
      await watch.stop()
    }
  }, 60_000)

  it('the demo folder stays with --keep', () => {
    expect(fs.existsSync(path.join(demo.cast_home, 'cast.db'))).toBe(true)
  })
})
