/**
 * The QR encoder of `cast web pair` (src/lib/web/qr.ts) checked by an independent decoder:
 * every matrix is drawn as RGBA pixels (black modules on white, a 4-module quiet zone) and read
 * back with jsQR, which locates the finders, reads the format and version information, unmasks,
 * corrects errors and decodes. A wrong mask, format bit, block split or Reed–Solomon codeword
 * makes the decoded text differ or the decode fail.
 */
import jsqr from 'jsqr'
import {describe, expect, it} from 'vitest'

import {encodeQr, formatBits, penalty, QR_MAX_VERSION, QrTooLong} from '../../src/lib/web/qr.js'
import {QUIET_ZONE, qrLines} from '../../src/lib/web/qr-terminal.js'

// jsqr is CommonJS: its module object is the function, and its `default` is the function too (the typed one).
const jsQR = jsqr.default

type Matrix = readonly (readonly boolean[])[]

/** Pixels of a matrix with its quiet zone, `scale` pixels a module. */
function pixels(m: Matrix, scale = 4): {data: Uint8ClampedArray; width: number} {
  const width = (m.length + 2 * QUIET_ZONE) * scale
  const data = new Uint8ClampedArray(width * width * 4).fill(255)
  m.forEach((row, r) =>
    row.forEach((dark, c) => {
      if (!dark) return
      for (let y = 0; y < scale; y++)
        for (let x = 0; x < scale; x++) {
          const i = (((r + QUIET_ZONE) * scale + y) * width + (c + QUIET_ZONE) * scale + x) * 4
          data[i] = data[i + 1] = data[i + 2] = 0
        }
    }),
  )
  return {data, width}
}

function decode(m: Matrix): {text: string; version: number} | null {
  const {data, width} = pixels(m)
  const result = jsQR(data, width, width, {inversionAttempts: 'dontInvert'})
  return result ? {text: result.data, version: result.version} : null
}

const PAIR_URL = 'http://192.168.1.23:4280/pair#K7QM-W3XR'
const INPUTS = [
  'a',
  'hello',
  PAIR_URL,
  'http://[fd7a:115c:a1e0::1]:4280/pair#ABCD-EFGH',
  'https://example.com/' + 'x'.repeat(120),
  'Grüße, 日本語, emoji 🎉 and a bidi ‮ override',
  '\u0000 binary \u00ff bytes \n and a newline',
  'y'.repeat(250),
  'z'.repeat(400),
]

describe('QR encoder, decoded by jsQR', () => {
  for (const level of ['M', 'L'] as const)
    for (const text of INPUTS)
      it(`level ${level}: ${JSON.stringify(text.slice(0, 40))} (${text.length} chars)`, () => {
        const qr = encodeQr(text, {level})
        expect(qr.modules).toHaveLength(17 + 4 * qr.version)
        expect(decode(qr.modules)).toEqual({text, version: qr.version})
      })

  it('draws every mask pattern so that it decodes (the format bits name the mask used)', () => {
    for (const level of ['M', 'L'] as const)
      for (let mask = 0; mask < 8; mask++)
        for (const text of ['hello', PAIR_URL, 'w'.repeat(180)]) {
          const qr = encodeQr(text, {level, mask})
          expect(qr.mask).toBe(mask)
          expect(decode(qr.modules)?.text).toBe(text)
        }
  })

  it('draws every version from 1 to the largest at both levels', () => {
    for (const level of ['M', 'L'] as const)
      for (let version = 1; version <= QR_MAX_VERSION; version++) {
        const text = `v${version}${level}`
        const qr = encodeQr(text, {level, minVersion: version})
        expect(qr.version).toBe(version)
        expect(decode(qr.modules)).toEqual({text, version})
      }
  })

  it('takes the smallest version that holds the text, and refuses what no version holds', () => {
    expect(encodeQr('x'.repeat(14)).version).toBe(1) // 16 data codewords at 1-M: 2 + 14
    expect(encodeQr('x'.repeat(15)).version).toBe(2)
    expect(encodeQr('x'.repeat(17), {level: 'L'}).version).toBe(1) // 19 at 1-L
    expect(encodeQr('x'.repeat(412)).version).toBe(15) // 415 at 15-M: 3 + 412
    expect(() => encodeQr('x'.repeat(413))).toThrow(QrTooLong)
  })

  it('each copy of the format information is right on its own (the other one blanked)', () => {
    for (const mask of [1, 6]) {
      const qr = encodeQr(PAIR_URL, {mask})
      const size = qr.modules.length
      const topLeft = qr.modules.map((row) => [...row])
      for (let i = 0; i <= 8; i++) {
        if (i !== 6) topLeft[8]![i] = false
        if (i !== 6) topLeft[i]![8] = false
      }
      const other = qr.modules.map((row) => [...row])
      for (let i = 0; i < 8; i++) other[8]![size - 1 - i] = false
      for (let i = 0; i < 7; i++) other[size - 1 - i]![8] = false
      expect(decode(topLeft)?.text).toBe(PAIR_URL)
      expect(decode(other)?.text).toBe(PAIR_URL)
    }
  })

  it('each copy of the version information is right on its own (versions 7 and up)', () => {
    for (const version of [7, 10, 14]) {
      const qr = encodeQr('v', {minVersion: version})
      const size = qr.modules.length
      for (const blankTopRight of [true, false]) {
        const m = qr.modules.map((row) => [...row])
        for (let a = size - 11; a < size - 8; a++)
          for (let b = 0; b < 6; b++)
            if (blankTopRight) m[b]![a] = !m[b]![a]
            else m[a]![b] = !m[a]![b]
        expect(decode(m)).toEqual({text: 'v', version})
      }
    }
  })

  it('computes the standard format bits (level M, mask 0 is 101010000010010)', () => {
    expect(formatBits('M', 0)).toBe(0b101010000010010)
    expect(formatBits('L', 0)).toBe(0b111011111000100)
    expect(formatBits('M', 5)).toBe(0b100000011001110)
  })

  it('picks the mask with the lowest penalty', () => {
    for (const text of ['hello', PAIR_URL, 'q'.repeat(90)]) {
      const scores = Array.from({length: 8}, (_, mask) => penalty(encodeQr(text, {mask}).modules))
      const auto = encodeQr(text)
      expect(scores[auto.mask]).toBe(Math.min(...scores))
    }
  })

  it('scores the four penalty rules', () => {
    const light = Array.from({length: 21}, () => Array.from({length: 21}, () => false))
    // Rule 1: 42 lines with a run of 21 (3 + 16 each); rule 2: 400 blocks × 3; rule 4: 0% dark is 10 steps of 5%.
    expect(penalty(light)).toBe(42 * 19 + 400 * 3 + 100)
    const stripes = Array.from({length: 11}, () => [true, false, true, true, true, false, true, false, false, false, false])
    // Each row: rule 3 once (40) and a light run of 4 (nothing); each column: a run of 11 of one colour (9).
    // Columns: 11 × 9; rows: 11 × 40; 2×2 blocks: the columns' equal neighbours (2–3, 3–4, 7–8, 8–9, 9–10) × 10 rows;
    // rule 4: 55 of 121 dark is 45.5%, no full 5% step.
    expect(penalty(stripes)).toBe(11 * 9 + 11 * 40 + 5 * 10 * 3)
  })
})

describe('QR in the terminal', () => {
  /** Half blocks back to modules: each character is two modules, top and bottom. */
  function parse(lines: readonly string[]): boolean[][] {
    const rows: boolean[][] = []
    for (const line of lines) {
      // eslint-disable-next-line no-control-regex
      const plain = line.replace(/\u001B\[[\d;]*m/g, '')
      rows.push([...plain].map((ch) => ch === '▀' || ch === '█'))
      rows.push([...plain].map((ch) => ch === '▄' || ch === '█'))
    }
    return rows
  }

  it('draws two modules a character with a quiet zone of four, and reads back to the same code', () => {
    for (const text of [PAIR_URL, 'Grüße 🎉 ' + 'k'.repeat(100)]) {
      const qr = encodeQr(text)
      const lines = qrLines(qr.modules)
      const size = qr.modules.length
      expect(lines).toHaveLength(Math.ceil((size + 8) / 2))
      // eslint-disable-next-line no-control-regex
      for (const line of lines) expect(line).toMatch(/^\u001B\[38;5;16;48;5;231m[ ▀▄█]+\u001B\[0m$/)
      const grid = parse(lines)
      expect(grid[0]!.length).toBe(size + 8)
      // The quiet zone: four light rows and columns on each side.
      for (let i = 0; i < 4; i++) {
        expect(grid[i]!.some(Boolean)).toBe(false)
        expect(grid.every((row) => !row[i] && !row[size + 4 + i])).toBe(true)
      }
      const inner = grid.slice(4, 4 + size).map((row) => row.slice(4, 4 + size))
      expect(inner).toEqual(qr.modules)
      expect(decode(inner)?.text).toBe(text)
    }
  })

  it('leaves the colours out when asked', () => {
    const lines = qrLines(encodeQr('hi').modules, {color: false})
    expect(lines.every((line) => /^[ ▀▄█]+$/.test(line))).toBe(true)
  })
})
