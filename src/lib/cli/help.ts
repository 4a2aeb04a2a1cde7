/**
 * cast's help: `--help` fits the width people have (OCLIF_COLUMNS, else
 * COLUMNS, else the terminal's, else 80) and wraps at word boundaries only.
 *
 * oclif's formatter wraps with wrap-ansi `hard: true`, which cuts a token longer than the room
 * left (a path, a URL) in the middle, and trims every line, which flattens indented lines
 * (a config snippet, a table of shells); it reads only OCLIF_COLUMNS, so a pipe is always 80
 * wide; string examples are not wrapped at all; and a description's source line breaks are kept,
 * so a paragraph written at 100 columns comes out ragged at 80. Here:
 * - a description's paragraphs are reflowed (lines joined) before wrapping; a line that starts
 *   with two spaces or a tab is preformatted and stays a line of its own;
 * - wrapping breaks between words only; a preformatted line keeps its indent and continues under
 *   its second column; a word longer than the line stays whole (it overflows rather than breaks);
 * - examples are wrapped as shell words (a quoted string is one word) with ` \` continuations,
 *   string examples as well as described ones.
 */
import {Command, CommandHelp, Help, Interfaces} from '@oclif/core'

import {cellWidth} from '../views/style.js'

const LF = /\r\n|\n/
/** A preformatted line: it starts with two spaces or more, or a tab. */
const PRE = /^(?: {2}|\t)/
// eslint-disable-next-line no-control-regex
const ANSI = /\u001B\[[0-?]*[ -/]*[@-~]/g

/** Display width in terminal cells (wide characters count twice; colour sequences none). */
export function cells(text: string): number {
  let n = 0
  for (const ch of text.replaceAll(ANSI, '')) n += cellWidth(ch.codePointAt(0)!)
  return n
}

/** The help's width: OCLIF_COLUMNS, else COLUMNS, else the terminal's, else 80; at least 40. */
export function helpWidth(
  env: Readonly<Record<string, string | undefined>> = process.env,
  tty: {isTTY?: boolean; columns?: number} = process.stdout,
): number {
  for (const key of ['OCLIF_COLUMNS', 'COLUMNS']) {
    const n = Number(env[key])
    if (Number.isInteger(n) && n > 0) return Math.max(40, n)
  }

  return tty.isTTY && tty.columns && tty.columns > 0 ? Math.max(40, tty.columns) : 80
}

/**
 * Join the lines of each paragraph into one, so the wrap decides where lines end. A line that
 * starts with two spaces or a tab is preformatted: it stays a line of its own, as does the line after it.
 */
export function reflow(text: string): string {
  return text
    .split(/(?:\r?\n){2,}/)
    .map((para) => {
      const out: string[] = []
      let joinable = false
      for (const line of para.split(LF)) {
        const pre = PRE.test(line)
        if (!pre && joinable && out.length > 0) out[out.length - 1] += ' ' + line.trim()
        else out.push(pre ? line.replace(/\s+$/, '') : line.trim())
        joinable = !pre
      }

      return out.join('\n')
    })
    .join('\n\n')
}

/**
 * Words to lines of at most `width` cells, breaking only between words. A preformatted line
 * (two spaces or a tab first) keeps its indent, and its continuation lines start under its second column (after
 * the first run of two or more spaces), else two further in. A word wider than the line stays
 * whole on a line of its own.
 */
export function wrapWords(text: string, width: number): string {
  return text
    .split(LF)
    .map((line) => {
      if (line.trim() === '') return ''
      const lead = PRE.test(line) ? /^\s*/.exec(line)![0] : ''
      const body = line.trimStart()
      const column = lead.length > 0 ? /^(\S+(?: \S+)*\s{2,})/.exec(body) : null
      const hang = lead + (column ? ' '.repeat(cells(column[1]!)) : lead.length > 0 ? '  ' : '')
      return fill(lead.length > 0 ? spaced(body) : words(body), width, lead, hang).join('\n')
    })
    .join('\n')
}

/** Shell words: whitespace separates, except inside '…' or "…" (a quoted string is one word). */
export function shellWords(text: string): string[] {
  const out: string[] = []
  let cur = ''
  let quote: string | null = null
  for (const ch of text) {
    if (quote) {
      cur += ch
      if (ch === quote) quote = null
    } else if (ch === '"' || ch === "'") {
      cur += ch
      quote = ch
    } else if (/\s/.test(ch)) {
      if (cur) out.push(cur)
      cur = ''
    } else cur += ch
  }

  if (cur) out.push(cur)
  return out
}

function words(text: string): string[] {
  return text.split(/\s+/).filter((w) => w !== '')
}

/** Words of a preformatted line, each but the first carrying the spacing before it beyond one space. */
function spaced(text: string): string[] {
  const out: string[] = []
  for (const m of text.matchAll(/(\s*)(\S+)/g)) out.push(out.length === 0 ? m[2]! : m[1]!.slice(1) + m[2]!)
  return out
}

function fill(ws: readonly string[], width: number, first: string, rest: string): string[] {
  const lines: string[] = []
  let cur = first
  let used = cells(first)
  let empty = true
  for (const w of ws) {
    const wc = cells(w)
    if (!empty && used + 1 + wc > width) {
      lines.push(cur)
      cur = rest
      used = cells(rest)
      empty = true
    }

    const word = empty ? w.trimStart() : w
    cur += (empty ? '' : ' ') + word
    used += (empty ? 0 : 1) + cells(word)
    empty = false
  }

  lines.push(cur)
  return lines
}

interface Lister {
  wrap(body: string, spacing?: number): string
  indent(body: string, spacing?: number): string
}

type ListOptions = {indentation: number; multiline?: boolean; spacer?: string; stripAnsi?: boolean}

/**
 * oclif's renderList (flags, arguments, commands), with the multi-line form's descriptions
 * wrapped for the indent they are printed at (oclif wraps them 2 columns too wide).
 */
function renderList(f: Lister, input: (string | undefined)[][], opts: ListOptions): string {
  if (input.length === 0) return ''
  const strip = (t: string): string => (opts.stripAnsi ? t.replaceAll(ANSI, '') : t)
  const multiline = (): string => {
    let output = ''
    for (const [left, right] of input) {
      if (!left && !right) continue
      if (left) output += f.wrap(strip(left).trim(), opts.indentation)
      if (right) output += '\n' + f.indent(f.wrap(strip(right).trim(), opts.indentation + 4), 4)
      output += '\n\n'
    }

    return output.trim()
  }

  if (opts.multiline) return multiline()
  const maxLength = Math.max(0, ...input.map((i) => Math.max(0, ...(i[0] ?? '').split('\n').map((l) => cells(l)))))
  let output = ''
  let spacer = opts.spacer || '\n'
  let cur = ''
  for (const [left, r] of input) {
    if (cur) output += spacer + cur
    cur = strip(left || '')
    if (!r) {
      cur = cur.trim()
      continue
    }

    const right = f.wrap(strip(r).trim(), opts.indentation + maxLength + 2)
    const [first, ...lines] = right.split('\n').map((l) => l.trim())
    cur += ' '.repeat(Math.max(0, maxLength - cells(cur) + 2)) + first
    if (lines.length === 0) continue
    if (lines.length > 4) return multiline()
    if (!opts.spacer) spacer = '\n'
    cur += '\n' + f.indent(lines.join('\n'), maxLength + 2)
  }

  if (cur) output += spacer + cur
  return output.trim()
}

class CastCommandHelp extends CommandHelp {
  constructor(command: Command.Loadable, config: Interfaces.Config, opts: Interfaces.HelpOptions) {
    super({...command, description: command.description === undefined ? undefined : reflow(command.description)}, config, opts)
  }

  override wrap(body: string, spacing = this.indentSpacing): string {
    return wrapWords(this.render(body), this.opts.maxWidth - spacing)
  }

  override renderList(input: (string | undefined)[][], opts: ListOptions): string {
    return renderList(this, input, opts)
  }

  /**
   * oclif marks every argument of a command that takes extra ones (strict = false) with "...":
   * `mark VERDICT... SESSION...`. Only the last one repeats. oclif also puts an argument's
   * options before its description as one unbreakable word ("(done|dormant|…)"); cast's
   * descriptions name them already.
   */
  protected override args(args: Command.Arg.Any[]): [string, string | undefined][] | undefined {
    const rows = super
      .args(args)
      ?.map(([name, about], i): [string, string | undefined] => [
        name,
        args[i]?.options && args[i]?.description ? about?.replace(/^\S*\([^()\s]+\)\S*\s+/, '') : about,
      ])
    if (!rows || this.command.strict !== false) return rows
    return rows.map((row, i) => (i === rows.length - 1 || args[i]?.multiple ? row : [row[0].replace('...', ''), row[1]]))
  }

  /** oclif prints the summary line above USAGE unwrapped. */
  override generate(): string {
    return wrapFirstLine(super.generate(), this.opts.maxWidth)
  }

  protected override examples(examples: Command.Example[] | string | undefined): string | undefined {
    if (!examples || examples.length === 0) return undefined
    const list = Array.isArray(examples) ? examples : [examples]
    const section = this.indentSpacing * 2
    return list
      .map((e) => {
        if (typeof e === 'string')
          return e
            .split(LF)
            .filter(Boolean)
            .map((c) => this.command_(c, section))
            .join('\n')
        const described = this.wrap(e.description, section)
        return `${described}\n\n${this.indent(this.command_(e.command, section + this.indentSpacing))}`
      })
      .join('\n\n')
  }

  /** One example command as shell words, continued with ` \` on the next line. */
  private command_(command: string, spacing: number): string {
    const rendered = this.render(command)
    const text = rendered.startsWith(`${this.config.bin} `) ? `$ ${rendered}` : rendered
    const room = this.opts.maxWidth - spacing - 2
    return fill(shellWords(text), room, '', '  ').join(' \\\n')
  }
}

export default class CastHelp extends Help {
  protected override CommandHelpClass = CastCommandHelp

  constructor(config: Interfaces.Config, opts: Partial<Interfaces.HelpOptions> = {}) {
    super(config, {...opts, maxWidth: opts.maxWidth ?? helpWidth()})
  }

  override wrap(body: string, spacing = this.indentSpacing): string {
    return wrapWords(this.render(body), this.opts.maxWidth - spacing)
  }

  override renderList(input: (string | undefined)[][], opts: ListOptions): string {
    return renderList(this, input, opts)
  }

  /** oclif prints the package's one-line description above VERSION unwrapped. */
  override formatRoot(): string {
    return wrapFirstLine(super.formatRoot(), this.opts.maxWidth)
  }
}

function wrapFirstLine(text: string, width: number): string {
  const i = text.indexOf('\n')
  const first = i < 0 ? text : text.slice(0, i)
  return cells(first) <= width ? text : wrapWords(first, width) + (i < 0 ? '' : text.slice(i))
}
