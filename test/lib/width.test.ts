/**
 * Width on a terminal: text is measured in cells after escaping (a CJK character takes two, an
 * escaped control its escaped form), a table narrows its free-text column to fit, and the pager
 * is chosen as git chooses it.
 */
import {describe, expect, it} from 'vitest'

import {pagerCommand, shouldPage} from '../../src/lib/views/pager.js'
import {oneLine} from '../../src/core/model/sanitize.js'
import {displayWidth, fitColumns, truncateCells} from '../../src/lib/views/style.js'
import {boxTable} from '../../src/lib/views/table.js'

describe('displayWidth', () => {
  it('counts CJK and emoji as two cells, combining marks as none, colour as none', () => {
    expect(displayWidth('abc')).toBe(3)
    expect(displayWidth('数据库')).toBe(6)
    expect(displayWidth('e\u0301')).toBe(1)
    expect(displayWidth('🚀 go')).toBe(5)
    expect(displayWidth('\u001B[33mwarn\u001B[0m')).toBe(4)
  })

  it('measures an escaped control character as the text it shows', () => {
    const title = 'a\u001B[31mred'
    expect(oneLine(title)).toBe('a^[[31mred')
    expect(displayWidth(oneLine(title))).toBe(10)
  })
})

describe('truncateCells', () => {
  it('keeps text that fits, cuts the rest with … to exactly the width', () => {
    expect(truncateCells('hello', 5)).toBe('hello')
    expect(truncateCells('hello world', 8)).toBe('hello w…')
    expect(displayWidth(truncateCells('hello world', 8))).toBe(8)
  })

  it('never splits a wide character: the cut stays within the width', () => {
    const cut = truncateCells('数据库迁移计划', 6)
    expect(cut).toBe('数据…')
    expect(displayWidth(cut)).toBeLessThanOrEqual(6)
  })
})

describe('fitColumns', () => {
  it('narrows the widest free-text column first, down to the minimum', () => {
    // id 7, state 20, title 50, who 20; 13 cells of borders.
    expect(fitColumns([7, 20, 50, 20], 80, [2, 3], 13)).toEqual([7, 20, 20, 20])
    expect(fitColumns([7, 20, 50, 20], 60, [2, 3], 13)).toEqual([7, 20, 10, 10])
    // It cannot do better than the minimum: the caller drops columns then.
    expect(fitColumns([7, 20, 50, 20], 30, [2, 3], 13, 8)).toEqual([7, 20, 8, 8])
  })

  it('leaves the natural widths with room, or in a pipe (no width)', () => {
    expect(fitColumns([7, 20, 50], 200, [2], 10)).toEqual([7, 20, 50])
    expect(fitColumns([7, 20, 50], null, [2], 10)).toEqual([7, 20, 50])
  })
})

describe('boxTable', () => {
  const rows = [
    ['abc1234', 'needs_input:question', '数据库迁移: move the orders table to the new cluster', 'ana@example.com'],
    ['def5678', 'done:declared_done', 'a\u001B[2Jcleared? no: shown', 'me@example.com'],
  ]

  it.each([40, 60, 80, 120])('fits %i columns, every line the same width, escapes shown', async (width) => {
    const text = await boxTable(rows, {drop: [3], flex: [2, 3], head: ['ID', 'STATE', 'TITLE', 'WHO'], width})
    const lines = text.split('\n')
    const widths = new Set(lines.map((l) => displayWidth(l)))
    expect(widths.size, text).toBe(1)
    expect([...widths][0]).toBeLessThanOrEqual(width)
    expect(text).not.toContain('\u001B')
    if (width >= 80) expect(text).toContain('a^[[2Jcleared')
  })

  it('drops the columns it may when even the narrowed table is too wide', async () => {
    const text = await boxTable(rows, {drop: [3], flex: [2, 3], head: ['ID', 'STATE', 'TITLE', 'WHO'], width: 40})
    expect(text).not.toContain('WHO')
    const wide = await boxTable(rows, {drop: [3], flex: [2, 3], head: ['ID', 'STATE', 'TITLE', 'WHO'], width: 120})
    expect(wide).toContain('WHO')
  })
})

describe('the pager', () => {
  it('is CAST_PAGER, else PAGER, else less -FRX; empty or cat turns it off', () => {
    expect(pagerCommand({})).toBe('less -FRX')
    expect(pagerCommand({PAGER: 'most'})).toBe('most')
    expect(pagerCommand({CAST_PAGER: 'less -S', PAGER: 'most'})).toBe('less -S')
    expect(pagerCommand({CAST_PAGER: '', PAGER: 'most'})).toBeNull()
    expect(pagerCommand({CAST_PAGER: 'cat'})).toBeNull()
    expect(pagerCommand({PAGER: 'cat'})).toBeNull()
  })

  it('pages only on a terminal, only text taller than it, and never with --no-pager', () => {
    const tall = Array.from({length: 50}, (_, i) => `line ${i}`).join('\n')
    const short = 'one\ntwo'
    expect(shouldPage(tall, {}, {isTTY: true, rows: 40})).toBe(true)
    expect(shouldPage(short, {}, {isTTY: true, rows: 40})).toBe(false)
    expect(shouldPage(tall, {}, {isTTY: false, rows: 40})).toBe(false)
    expect(shouldPage(tall, {}, {isTTY: true, rows: 40}, false)).toBe(false)
    expect(shouldPage(tall, {CAST_PAGER: ''}, {isTTY: true, rows: 40})).toBe(false)
  })
})
