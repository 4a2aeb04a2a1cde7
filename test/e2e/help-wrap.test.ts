/**
 * Issue 13 point 7: help text wraps at word boundaries. Every command's `--help` at 60 and 100
 * columns: no line wider than that, no word cut across two lines (a word is what the same help
 * shows unwrapped, 10,000 columns wide), indented lines of a description kept indented.
 * The commands are rendered in-process with cast's help class over this checkout's manifest; the
 * CLI itself is run for the root help and one command, to see that oclif uses that class and
 * that COLUMNS reaches it.
 */
import {Config} from '@oclif/core'
import {beforeAll, describe, expect, it} from 'vitest'

import CastHelp, {cells, helpWidth, reflow, shellWords, wrapWords} from '../../src/lib/cli/help.js'
import {makeHome, ROOT, runCast} from '../helpers/cli.js'

const WIDTHS = [60, 100]

/** Every place a line of `narrow` breaks inside a word of `wide` (the same help, unwrapped). */
export function brokenWords(narrow: string, wide: string): string[] {
  const tokens = wide.split(/\s+/).filter(Boolean)
  const lines = narrow.split('\n')
  const out: string[] = []
  for (let i = 0; i + 1 < lines.length; i++) {
    const a = lines[i]!.replace(/ \\$/, '').trimEnd()
    const b = lines[i + 1]!.trim()
    if (a.trim() === '' || b === '') continue
    const last = a.split(/\s+/).at(-1)!
    const first = b.split(/\s+/)[0]!
    const joined = last + first
    if (tokens.some((t) => t.includes(joined)) && !wide.includes(`${last} ${first}`))
      out.push(`${last}|${first}  (line ${i + 1}: "${lines[i]}")`)
  }

  return out
}

function tooWide(text: string, width: number): string[] {
  return text.split('\n').filter((l) => cells(l) > width)
}

describe('the wrap (table)', () => {
  it.each([
    ['words to lines, never cutting one', 'alpha beta gamma delta', 12, 'alpha beta\ngamma delta'],
    [
      'a word wider than the line stays whole',
      'see ~/.config/fish/completions/cast.fish now',
      20,
      'see\n~/.config/fish/completions/cast.fish\nnow',
    ],
    [
      'an indented line keeps its indent and continues under its second column',
      '  fish   cast completion fish > ~/x.fish',
      30,
      '  fish   cast completion fish\n         > ~/x.fish',
    ],
    ['an indented line that fits is kept as written', '  set -g status-interval 5', 40, '  set -g status-interval 5'],
    ['wide characters count twice', '日本語 日本語 日本語', 14, '日本語 日本語\n日本語'],
    ['blank lines stay', 'a\n\nb', 10, 'a\n\nb'],
    ['one leading space is not an indent (oclif passes usage tails so)', ' [--cwd DIR] [--label L]', 12, '[--cwd DIR]\n[--label L]'],
  ])('%s', (_what, input, width, want) => {
    expect(wrapWords(input, width)).toBe(want)
  })

  it.each([
    [
      'a paragraph broken at 100 columns becomes one line',
      'Copies the bundled home\ninto a folder.\n\nNext one.',
      'Copies the bundled home into a folder.\n\nNext one.',
    ],
    [
      'indented lines stay lines of their own',
      'In ~/.tmux.conf:\n  set -g a 5\n  set -g b x\nAfter.',
      'In ~/.tmux.conf:\n  set -g a 5\n  set -g b x\nAfter.',
    ],
    ['a line that starts with a flag joins the sentence before it', 'and with\n--json), flushed.', 'and with --json), flushed.'],
  ])('reflow: %s', (_what, input, want) => {
    expect(reflow(input)).toBe(want)
  })

  it.each([
    ['quoted strings are one word', `cast decide "Ship now?" --option 'A :: b'`, ['cast', 'decide', '"Ship now?"', '--option', "'A :: b'"]],
    ['$(…) is split at its spaces (only quotes join)', 'id=$(cast x) && cast y', ['id=$(cast', 'x)', '&&', 'cast', 'y']],
  ])('shell words: %s', (_what, input, want) => {
    expect(shellWords(input)).toEqual(want)
  })

  it.each([
    [{COLUMNS: '60'}, 60],
    [{COLUMNS: '100', OCLIF_COLUMNS: '72'}, 72],
    [{COLUMNS: '20'}, 40],
    [{COLUMNS: 'wide'}, 80],
    [{}, 80],
  ])('width from %j: %i', (env, want) => {
    expect(helpWidth(env, {isTTY: false})).toBe(want)
  })

  it('the check finds a word cut in two', () => {
    expect(brokenWords('see ~/.config/fish/comp\nletions/cast.fish', 'see ~/.config/fish/completions/cast.fish')).toHaveLength(1)
    expect(brokenWords('see the\nrest', 'see the rest')).toEqual([])
  })
})

describe('every command help fits 60 and 100 columns and breaks only between words', () => {
  let config: Config
  const render = (id: string, width: number): string => {
    const help = new CastHelp(config, {maxWidth: width}) as unknown as {formatCommand(c: unknown): string}
    // formatCommand rewrites the id it is given (a:b to a b): give it a copy.
    return help.formatCommand({...config.findCommand(id)!})
  }

  beforeAll(async () => {
    config = await Config.load(ROOT)
  })

  it('reads every command', () => {
    expect(config.commands.length).toBeGreaterThan(40)
  })

  it.each(WIDTHS)('at %i columns', (width) => {
    const problems: string[] = []
    for (const id of config.commands.map((c) => c.id).sort()) {
      const narrow = render(id, width)
      const wide = render(id, 10_000)
      for (const l of tooWide(narrow, width)) problems.push(`${id}: wider than ${width}: "${l}"`)
      for (const b of brokenWords(narrow, wide)) problems.push(`${id}: word cut: ${b}`)
    }

    expect(problems).toEqual([])
  })

  it('indented lines of a description stay indented', () => {
    const text = render('status', 60)
    expect(text).toMatch(/^ {4}set -g status-interval 5$/m)
    expect(render('completion', 60)).toMatch(/^ {4}bash {3}echo/m)
  })
})

describe('the CLI uses this help, at the width COLUMNS gives', () => {
  it.each(WIDTHS)('cast --help and cast decide --help at COLUMNS=%i', async (width) => {
    const h = makeHome()
    try {
      for (const args of [['--help'], ['decide', '--help']]) {
        const r = await runCast(args, {env: {...h.env, COLUMNS: String(width)}})
        const wide = await runCast(args, {env: {...h.env, COLUMNS: '10000'}})
        expect(r.code).toBe(0)
        expect(tooWide(r.stdout, width)).toEqual([])
        expect(brokenWords(r.stdout, wide.stdout)).toEqual([])
        // It is really wrapped at this width: some line comes close to it.
        expect(Math.max(...r.stdout.split('\n').map((l) => cells(l)))).toBeGreaterThan(width - 15)
      }
    } finally {
      h.cleanup()
    }
  })
})
