/**
 * Tables that fit the terminal: every cell is escaped first (src/core/model/sanitize.ts), then measured
 * in terminal cells (CJK two, an escaped control its escaped form), and the free-text columns
 * (a title, a question, a message) are narrowed to fit the width (src/lib/views/style.ts, terminalWidth);
 * with no width (a pipe) cells keep their whole text. Drawn by cli-table3, boxed.
 */
import {oneLine, visible} from '../../core/model/sanitize.js'
import {displayWidth, fitColumns, fitLines, truncateCells} from './style.js'

export interface BoxTableOptions {
  readonly head: readonly string[]
  /** Columns that give up width, in any order: the widest is narrowed first. */
  readonly flex: readonly number[]
  readonly width: number | null
  /** Cells wrap onto several lines in their column (else one line, cut with …). */
  readonly wrap?: boolean
  /** Widest a column is drawn even with room (e.g. a question in a list), cells counted. */
  readonly max?: Readonly<Record<number, number>>
  /** Columns left out, in this order, while the table cannot fit even with its free text narrowed. */
  readonly drop?: readonly number[]
}

const MIN_FLEX = 6

export async function boxTable(rows: readonly (readonly string[])[], o: BoxTableOptions): Promise<string> {
  const {default: Table} = await import('cli-table3')
  let head = [...o.head]
  let clean = rows.map((r) => r.map((c) => (o.wrap ? visible(c).replaceAll('\t', ' ') : oneLine(c))))
  const measure = (cols: readonly string[], cells: readonly (readonly string[])[]): number[] =>
    cols.map((h, i) => {
      const w = Math.max(displayWidth(h), ...cells.map((r) => Math.max(0, ...(r[i] ?? '').split('\n').map((l) => displayWidth(l)))))
      return Math.min(w, o.max?.[i] ?? w)
    })
  // Index bookkeeping: which of the caller's columns are still shown.
  let shown = o.head.map((_, i) => i)
  const minimum = (natural: readonly number[]): number =>
    natural.reduce((sum, w, j) => sum + (o.flex.includes(shown[j]!) ? Math.min(w, MIN_FLEX) : w), 0) + shown.length * 3 + 1
  let natural = measure(head, clean)
  for (const drop of o.drop ?? []) {
    if (o.width === null || minimum(natural) <= o.width) break
    const j = shown.indexOf(drop)
    if (j < 0) continue
    shown = shown.filter((_, k) => k !== j)
    head = head.filter((_, k) => k !== j)
    clean = clean.map((r) => r.filter((_, k) => k !== j))
    natural = natural.filter((_, k) => k !== j)
  }

  // A boxed row: a border before each column and one after, and a space either side of every cell.
  const flex = shown.flatMap((col, j) => (o.flex.includes(col) ? [j] : []))
  const widths = fitColumns(natural, o.width, flex, shown.length * 3 + 1, MIN_FLEX)
  const table = new Table({
    chars: {'left-mid': '', mid: '', 'mid-mid': '', 'right-mid': ''},
    colWidths: widths.map((w) => w + 2),
    head,
    style: {border: [], head: []},
    wordWrap: o.wrap ?? false,
  })
  for (const r of clean) table.push(o.wrap ? [...r] : r.map((c, i) => truncateCells(c, widths[i]!)))
  // Narrower than the narrowest table: its lines are cut at the right edge, rather than wrapped.
  return fitLines(table.toString(), o.width)
}
