/**
 * Issue 13 point 7: lists accept commas and repeats alike, everywhere a flag or the arguments take
 * several values (src/lib/cli/lists.ts). The helper as a table, then each list of the CLI given both
 * ways on the demo store, on a fixed clock: the same output, the same exit code.
 */
import fs from 'node:fs'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {listOf} from '../../src/lib/cli/lists.js'
import {json, makeHome, runCast, type TempHome} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'

describe('listOf (table)', () => {
  it.each([
    ['one value', 'a', ['a']],
    ['a comma list', 'a,b', ['a', 'b']],
    ['repeats', ['a', 'b'], ['a', 'b']],
    ['both at once', ['a,b', 'c'], ['a', 'b', 'c']],
    ['spaces around values', [' a , b ', 'c '], ['a', 'b', 'c']],
    ['empty values dropped', ['a,,b,', ''], ['a', 'b']],
    ['repeated values once, the first place kept', ['b,a', 'b'], ['b', 'a']],
    ['nothing', undefined, []],
    ['argv values of any type', [1, 'x'], ['1', 'x']],
  ])('%s', (_what, input, want) => {
    expect(listOf(input as never)).toEqual(want)
  })
})

describe('the CLI: a comma list and repeats give the same result', () => {
  let h: TempHome
  let demo: string
  let snapshot: string
  let env: Record<string, string>

  beforeAll(async () => {
    h = makeHome()
    const now = String(Date.now())
    const built = await runCast(['demo', '--keep', '--json'], {env: {...h.env, CAST_NOW: now, TMPDIR: h.dir}, timeout: 120_000})
    expect(built.code, built.stderr).toBe(0)
    const base = json<{cast_home: string; home: string}>(built)
    demo = path.dirname(base.cast_home)
    env = {...h.env, CAST_HOME: base.cast_home, CAST_NOW: now, HOME: base.home}
    // Two labels to filter by.
    expect((await runCommand(['label', 'fleet', 'kdsmarj', 'grjaguv'], {env})).code).toBe(0)
    expect((await runCommand(['label', 'docs', 'ckuxaoy'], {env})).code).toBe(0)
    snapshot = path.join(h.dir, 'snapshot')
    fs.cpSync(demo, snapshot, {recursive: true})
  }, 180_000)

  afterAll(() => h?.cleanup())

  const run = async (args: string[]): Promise<{code: number; stdout: string; stderr: string}> => {
    fs.rmSync(demo, {force: true, recursive: true})
    fs.cpSync(snapshot, demo, {recursive: true})
    // In the test process (test/helpers/run-command.ts): what is under test is how each command
    // reads its lists, the same in a child (cli.test.ts and help-examples.test.ts spawn the CLI).
    return runCommand(args, {env})
  }

  const ids = (stdout: string): string[] =>
    (JSON.parse(stdout) as {sessions: Array<{short_id: string}>}).sessions.map((s) => s.short_id).sort()

  // [what, the comma form, the repeated form, what the result must hold]
  const rows: Array<[string, string[], string[], (out: string, code: number) => void]> = [
    [
      'sessions --agent',
      ['sessions', '--all', '--json', '--agent', 'codex,gemini-cli'],
      ['sessions', '--all', '--json', '--agent', 'codex', '--agent', 'gemini-cli'],
      (o) => expect(ids(o)).toEqual(['6emibs5', 'ckuxaoy', 'lgamnxj']),
    ],
    [
      'sessions --state',
      ['sessions', '--json', '--state', 'done,idle'],
      ['sessions', '--json', '--state', 'done', '--state', 'idle'],
      (o) => expect(ids(o)).toEqual(['ckq7fgv', 'lh5rllu', 'sgapbtp', 'yjnhkpc']),
    ],
    [
      'sessions --label',
      ['sessions', '--json', '--label', 'fleet,docs'],
      ['sessions', '--json', '--label', 'fleet', '--label', 'docs'],
      (o) => expect(ids(o)).toEqual(['ckuxaoy', 'grjaguv', 'kdsmarj']),
    ],
    [
      'feed --agent and --label',
      ['feed', '-g', '--json', '--agent', 'claude,gemini', '--label', 'fleet,docs'],
      ['feed', '-g', '--json', '--agent', 'claude', '--agent', 'gemini', '--label', 'fleet', '--label', 'docs'],
      (o) => expect(ids(o)).toEqual(['ckuxaoy', 'grjaguv', 'kdsmarj']),
    ],
    [
      'session arguments (pin)',
      ['pin', 'ckq7fgv,yjnhkpc', '--json'],
      ['pin', 'ckq7fgv', 'yjnhkpc', '--json'],
      (o) => expect(ids(o)).toEqual(['ckq7fgv', 'yjnhkpc']),
    ],
    [
      'session arguments (wait)',
      ['wait', 'ckq7fgv,yjnhkpc', '--until', 'done', '--json'],
      ['wait', 'ckq7fgv', 'yjnhkpc', '--until', 'done', '--json'],
      (o, code) => expect([code, ids(o)]).toEqual([0, ['ckq7fgv', 'yjnhkpc']]),
    ],
    [
      'wait --until',
      ['wait', 'ckq7fgv', '--until', 'working,done', '--json'],
      ['wait', 'ckq7fgv', '--until', 'working', '--until', 'done', '--json'],
      (_o, code) => expect(code).toBe(0),
    ],
    [
      'send --if (refused: kdsmarj needs input)',
      ['send', 'kdsmarj', 'hi', '--if', 'done,dormant'],
      ['send', 'kdsmarj', 'hi', '--if', 'done', '--if', 'dormant'],
      (_o, code) => expect(code).toBe(5),
    ],
    [
      'notify --backend (a bad one in the list is a usage error)',
      ['notify', '--backend', 'tmux,nowhere'],
      ['notify', '--backend', 'tmux', '--backend', 'nowhere'],
      (_o, code) => expect(code).toBe(2),
    ],
  ]

  it.each(rows)('%s', async (_what, comma, repeated, check) => {
    const a = await run(comma)
    const b = await run(repeated)
    expect(a.code, `${comma.join(' ')}\n${a.stderr}`).toBe(b.code)
    expect(a.stdout).toBe(b.stdout)
    check(a.stdout, a.code)
  })
})
