/**
 * Issue 12 point 5: one error module. Errors are classified by their class: oclif's parser
 * errors (whatever their English says) are usage errors with a pointer to the help, cast's own
 * keep their code, this.exit() ends quietly, and the store's faults become one line.
 */
import {Args, Errors, Flags, Parser} from '@oclif/core'
import {describe, expect, it} from 'vitest'

import {CastError, classifyError, EXIT, ParseUsageError, parseFailure} from '../../src/lib/cli/errors.js'

async function parseError(argv: string[], input: Parameters<typeof Parser.parse>[1]): Promise<unknown> {
  try {
    await Parser.parse(argv, input)
  } catch (error) {
    return error
  }

  throw new Error(`parsing ${argv.join(' ')} did not fail`)
}

describe('parse failures', () => {
  const cases: [string, string[], Parameters<typeof Parser.parse>[1], RegExp][] = [
    ['a nonexistent flag', ['--bogus'], {flags: {}}, /^cast decide list has no flag --bogus\.$/],
    ['a missing argument', [], {args: {session: Args.string({required: true})}}, /^cast decide list needs SESSION\.$/],
    ['an unexpected argument', ['a', 'b'], {args: {session: Args.string()}, strict: true}, /^cast decide list takes no argument "b"\.$/],
    ['a flag without its value', ['--since'], {flags: {since: Flags.integer()}}, /^Flag --since expects a value$/],
    [
      'a builtin flag that does not parse',
      ['--since', 'x'],
      {flags: {since: Flags.integer()}},
      /^--since: Expected an integer but received: x$/,
    ],
    [
      'a constraint',
      [],
      {flags: {a: Flags.string({exactlyOne: ['a', 'b']}), b: Flags.string({exactlyOne: ['a', 'b']})}},
      /Exactly one of the following must be provided: --a, --b/,
    ],
    [
      'a plain Error from a custom flag',
      ['--agent', 'x'],
      {
        flags: {
          agent: Flags.custom<string>({
            parse: async () => {
              throw new Error('"x" is not an agent')
            },
          })(),
        },
      },
      /^--agent: "x" is not an agent$/,
    ],
  ]
  for (const [what, argv, input, message] of cases) {
    it(`${what} is a usage error pointing at the help`, async () => {
      const e = parseFailure(await parseError(argv, input), 'decide:list')
      expect(e).toBeInstanceOf(ParseUsageError)
      expect(e.exit).toBe(EXIT.USAGE)
      expect(e.message).toMatch(message)
      expect(e.suggestions).toEqual(['See: cast decide list --help'])
    })
  }

  it("cast's own error keeps its message and code", () => {
    const own = new CastError('No session matches "zz".', EXIT.NOT_FOUND)
    expect(parseFailure(own, 'explain')).toBe(own)
  })
})

describe('classifyError', () => {
  const home = '/tmp/cast-home'
  it('reports cast errors with their exit code and suggestions', () => {
    expect(classifyError(new CastError('refused', EXIT.REFUSED, ['try again']), home)).toEqual({
      exit: 5,
      kind: 'report',
      message: 'refused',
      suggestions: ['try again'],
    })
  })

  it('this.exit(n) ends quietly with n', () => {
    expect(classifyError(new Errors.ExitError(3), home)).toEqual({exit: 3, kind: 'exit'})
    expect(classifyError(new Errors.ExitError(0), home)).toEqual({exit: 0, kind: 'exit'})
  })

  it("a CLIError carries oclif's exit code; anything else is an unexpected failure", () => {
    expect(classifyError(new Errors.CLIError('bad', {exit: 4}), home)).toMatchObject({exit: 4, kind: 'report', message: 'bad'})
    expect(classifyError(new TypeError('x is undefined'), home)).toMatchObject({exit: EXIT.FAILURE, kind: 'report', unexpected: true})
  })

  it("a store fault is one line naming CAST_HOME, whatever SQLite's own words", () => {
    const busy = Object.assign(new Error('database is locked'), {code: 'SQLITE_BUSY', name: 'SqliteError'})
    const c = classifyError(busy, home)
    expect(c).toMatchObject({exit: EXIT.FAILURE, kind: 'report', suggestions: ['Run the command again.']})
    expect(c.kind === 'report' && c.message).toContain(`The cast store in ${home} stayed locked`)
  })
})
