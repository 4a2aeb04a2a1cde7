import type {WorkState} from '../../core/model/types.js'
import {PLAIN, type RenderStyle} from './views.js'

/** Colour only on a TTY and never with NO_COLOR (docs/contract.md §6). */
export async function terminalStyle(): Promise<RenderStyle> {
  if (!process.stdout.isTTY || process.env.NO_COLOR !== undefined) return PLAIN
  const {default: chalk} = await import('chalk')
  const colours: Record<WorkState, (s: string) => string> = {
    dormant: chalk.blue,
    done: chalk.green,
    idle: chalk.gray,
    needs_input: chalk.yellow,
    working: chalk.cyan,
  }
  return {bold: chalk.bold, dim: chalk.dim, state: (st, s) => colours[st](s)}
}

/** The width rows must fit: COLUMNS when set (as in every shell), else the terminal's, else none (a pipe). */
export function terminalWidth(
  env: Readonly<Record<string, string | undefined>> = process.env,
  out: {readonly isTTY?: boolean; readonly columns?: number} = process.stdout,
): number | null {
  const cols = Number(env.COLUMNS)
  if (Number.isInteger(cols) && cols > 0) return cols
  return out.isTTY && out.columns !== undefined && out.columns > 0 ? out.columns : null
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001B\[[0-?]*[ -/]*[@-~]/y

/** The cells one code point takes in a terminal: East Asian wide and emoji two, combining marks none. */
export function cellWidth(cp: number): number {
  // East Asian wide and emoji: two cells. Combining marks: none.
  if ((cp >= 0x300 && cp <= 0x36f) || cp === 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f)) return 0
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  )
    return 2
  return 1
}

/** One line cut to `width` cells, ending in … when cut; colour sequences kept and closed. */
export function fitLine(line: string, width: number | null): string {
  if (width === null || width < 2) return line
  let cells = 0
  let out = ''
  let coloured = false
  for (let i = 0; i < line.length;) {
    ANSI.lastIndex = i
    const m = ANSI.exec(line)
    if (m) {
      out += m[0]
      coloured = true
      i += m[0].length
      continue
    }

    const cp = line.codePointAt(i)!
    const ch = String.fromCodePoint(cp)
    const w = cellWidth(cp)
    if (cells + w > width - 1) {
      // Does the rest fit exactly? Then no ellipsis is needed.
      const rest = [...line.slice(i).replaceAll(new RegExp(ANSI.source, 'g'), '')].reduce((n, c) => n + cellWidth(c.codePointAt(0)!), 0)
      if (cells + rest <= width) return line
      return out + '…' + (coloured ? '\u001B[0m' : '')
    }

    out += ch
    cells += w
    i += ch.length
  }

  return out
}

export function fitLines(text: string, width: number | null): string {
  return width === null
    ? text
    : text
        .split('\n')
        .map((l) => fitLine(l, width))
        .join('\n')
}

// eslint-disable-next-line no-control-regex
const ANSI_ALL = /\u001B\[[0-?]*[ -/]*[@-~]/g

/** The cells a string takes on a terminal (colour sequences take none). Measure text after escaping it. */
export function displayWidth(s: string): number {
  let n = 0
  for (const ch of s.replace(ANSI_ALL, '')) n += cellWidth(ch.codePointAt(0)!)
  return n
}

/** Plain text (no colour) cut to at most `width` cells, ending in … when cut. */
export function truncateCells(s: string, width: number): string {
  if (displayWidth(s) <= width) return s
  if (width <= 0) return ''
  let out = ''
  let cells = 0
  for (const ch of s) {
    const w = cellWidth(ch.codePointAt(0)!)
    if (cells + w > width - 1) break
    out += ch
    cells += w
  }

  return out + '…'
}

/**
 * Column widths that fit `width` cells: the natural widths, with the free-text columns (`flex`,
 * e.g. a title) narrowed, widest first, down to `min` cells each; `overhead` is what the table
 * adds beside its cells (gaps, borders, padding). With no width (a pipe) the natural widths.
 */
export function fitColumns(natural: readonly number[], width: number | null, flex: readonly number[], overhead: number, min = 8): number[] {
  const out = [...natural]
  if (width === null) return out
  let over = out.reduce((a, b) => a + b, 0) + overhead - width
  while (over > 0) {
    const widest = flex.filter((i) => out[i]! > min).sort((a, b) => out[b]! - out[a]!)[0]
    if (widest === undefined) break
    const next = Math.max(min, ...flex.filter((i) => i !== widest).map((i) => Math.min(out[i]!, out[widest]! - 1)))
    const take = Math.min(over, out[widest]! - next)
    out[widest]! -= Math.max(1, take)
    over -= Math.max(1, take)
  }

  return out
}
