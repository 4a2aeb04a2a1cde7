/**
 * A QR code encoder (ISO/IEC 18004, model 2), pure: text in, a square of modules out (true is
 * dark). Byte mode (the text's UTF-8 bytes), error correction level M (or L), versions 1 to 15
 * (up to 412 bytes at M), the mask chosen by the four penalty rules, format and version
 * information as the standard places them. It draws the pairing address of `cast web pair`
 * (docs/web.md, "Security model"); test/web/qr.test.ts decodes what it draws with jsQR.
 */

export type QrLevel = 'L' | 'M'

export interface QrOptions {
  /** Error correction level (default M: about 15% of the symbol may be damaged). */
  readonly level?: QrLevel
  /** Use this mask (0–7) instead of the one the penalty rules pick (tests draw each mask). */
  readonly mask?: number
  /** The smallest version to use (default 1); a larger one is taken when the text needs it. */
  readonly minVersion?: number
}

export interface QrCode {
  readonly version: number
  readonly level: QrLevel
  readonly mask: number
  /** modules[row][column], true is dark; (21 + 4 × (version − 1)) square, without the quiet zone. */
  readonly modules: boolean[][]
}

/** Per version (index 0 is version 1): [EC codewords per block, blocks of group 1, data codewords in each, blocks of group 2, data codewords in each]. */
type Blocks = readonly [number, number, number, number, number]
const BLOCKS: Record<QrLevel, readonly Blocks[]> = {
  L: [
    [7, 1, 19, 0, 0],
    [10, 1, 34, 0, 0],
    [15, 1, 55, 0, 0],
    [20, 1, 80, 0, 0],
    [26, 1, 108, 0, 0],
    [18, 2, 68, 0, 0],
    [20, 2, 78, 0, 0],
    [24, 2, 97, 0, 0],
    [30, 2, 116, 0, 0],
    [18, 2, 68, 2, 69],
    [20, 4, 81, 0, 0],
    [24, 2, 92, 2, 93],
    [26, 4, 107, 0, 0],
    [30, 3, 115, 1, 116],
    [22, 5, 87, 1, 88],
  ],
  M: [
    [10, 1, 16, 0, 0],
    [16, 1, 28, 0, 0],
    [26, 1, 44, 0, 0],
    [18, 2, 32, 0, 0],
    [24, 2, 43, 0, 0],
    [16, 4, 27, 0, 0],
    [18, 4, 31, 0, 0],
    [22, 2, 38, 2, 39],
    [22, 3, 36, 2, 37],
    [26, 4, 43, 1, 44],
    [30, 1, 50, 4, 51],
    [22, 6, 36, 2, 37],
    [22, 8, 37, 1, 38],
    [24, 4, 40, 5, 41],
    [24, 5, 41, 5, 42],
  ],
}
export const QR_MAX_VERSION = 15

/** Centres of the alignment patterns per version (rows and columns alike). */
const ALIGN: readonly (readonly number[])[] = [
  [],
  [6, 18],
  [6, 22],
  [6, 26],
  [6, 30],
  [6, 34],
  [6, 22, 38],
  [6, 24, 42],
  [6, 26, 46],
  [6, 28, 50],
  [6, 30, 54],
  [6, 32, 58],
  [6, 34, 62],
  [6, 26, 46, 66],
  [6, 26, 48, 70],
]

/** The two bits of each level in the format information. */
const LEVEL_BITS: Record<QrLevel, number> = {L: 0b01, M: 0b00}

export class QrTooLong extends Error {}

/** Encode text (as UTF-8, byte mode) in the smallest version that holds it. */
export function encodeQr(text: string, options: QrOptions = {}): QrCode {
  const level = options.level ?? 'M'
  const bytes = new TextEncoder().encode(text)
  let version = Math.max(1, options.minVersion ?? 1)
  while (version <= QR_MAX_VERSION && dataCapacity(version, level) * 8 < bitLength(bytes.length, version)) version++
  if (version > QR_MAX_VERSION)
    throw new QrTooLong(`${bytes.length} bytes do not fit a version ${QR_MAX_VERSION} QR code at level ${level}.`)
  const codewords = interleave(dataCodewords(bytes, version, level), version, level)
  const size = 17 + 4 * version
  const {modules, reserved} = functionPatterns(version)
  placeCodewords(modules, reserved, codewords)
  const masks = options.mask === undefined ? [0, 1, 2, 3, 4, 5, 6, 7] : [options.mask]
  let best: {mask: number; modules: boolean[][]; score: number} | undefined
  for (const mask of masks) {
    if (!Number.isInteger(mask) || mask < 0 || mask > 7) throw new RangeError(`A QR mask is 0 to 7, not ${mask}.`)
    const candidate = modules.map((row) => [...row])
    applyMask(candidate, reserved, mask)
    drawFormat(candidate, size, level, mask)
    const score = penalty(candidate)
    if (!best || score < best.score) best = {mask, modules: candidate, score}
  }
  return {level, mask: best!.mask, modules: best!.modules, version}
}

function dataCapacity(version: number, level: QrLevel): number {
  const [, n1, d1, n2, d2] = BLOCKS[level][version - 1]!
  return n1 * d1 + n2 * d2
}

/** Mode (4 bits), character count (8 bits up to version 9, 16 from 10), the bytes. */
function bitLength(count: number, version: number): number {
  return 4 + (version < 10 ? 8 : 16) + 8 * count
}

/** The data codewords: mode, count, bytes, terminator, padding to a byte, pad bytes 0xEC 0x11. */
function dataCodewords(bytes: Uint8Array, version: number, level: QrLevel): number[] {
  const capacity = dataCapacity(version, level) * 8
  const bits: number[] = []
  const put = (value: number, length: number): void => {
    for (let i = length - 1; i >= 0; i--) bits.push((value >>> i) & 1)
  }
  put(0b0100, 4)
  put(bytes.length, version < 10 ? 8 : 16)
  for (const b of bytes) put(b, 8)
  put(0, Math.min(4, capacity - bits.length))
  while (bits.length % 8 !== 0) bits.push(0)
  const out: number[] = []
  for (let i = 0; i < bits.length; i += 8) out.push(bits.slice(i, i + 8).reduce((acc, b) => (acc << 1) | b, 0))
  for (let pad = 0xec; out.length < capacity / 8; pad ^= 0xec ^ 0x11) out.push(pad)
  return out
}

// GF(256) with the polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11D), as the standard's Reed–Solomon code.
const EXP: number[] = []
const LOG: number[] = []
for (let i = 0, x = 1; i < 255; i++) {
  EXP[i] = x
  LOG[x] = i
  x <<= 1
  if (x & 0x100) x ^= 0x11d
}
const mul = (a: number, b: number): number => (a === 0 || b === 0 ? 0 : EXP[(LOG[a]! + LOG[b]!) % 255]!)

/** The generator polynomial of degree n, coefficients from the highest power (leading 1 left out). */
function generator(n: number): number[] {
  let poly = [1]
  for (let i = 0; i < n; i++) {
    // Multiply by (x − α^i); in GF(2^8) minus is plus.
    const next = Array.from({length: poly.length + 1}, () => 0)
    poly.forEach((c, j) => {
      next[j]! ^= c
      next[j + 1]! ^= mul(c, EXP[i]!)
    })
    poly = next
  }
  return poly.slice(1)
}

/** The remainder of data × x^n divided by the generator: the block's n error correction codewords. */
function reedSolomon(data: readonly number[], n: number): number[] {
  const gen = generator(n)
  const rem = Array.from({length: n}, () => 0)
  for (const d of data) {
    const factor = d ^ rem.shift()!
    rem.push(0)
    for (let i = 0; i < n; i++) rem[i]! ^= mul(gen[i]!, factor)
  }
  return rem
}

/** Split into blocks, add each block's EC codewords, interleave data then EC column by column. */
function interleave(data: readonly number[], version: number, level: QrLevel): number[] {
  const [ec, n1, d1, n2, d2] = BLOCKS[level][version - 1]!
  const blocks: number[][] = []
  let at = 0
  for (let b = 0; b < n1 + n2; b++) {
    const len = b < n1 ? d1 : d2
    blocks.push(data.slice(at, at + len))
    at += len
  }
  const ecBlocks = blocks.map((block) => reedSolomon(block, ec))
  const out: number[] = []
  for (let i = 0; i < Math.max(d1, d2); i++) for (const block of blocks) if (i < block.length) out.push(block[i]!)
  for (let i = 0; i < ec; i++) for (const block of ecBlocks) out.push(block[i]!)
  return out
}

/** Finder, separator, timing and alignment patterns, the dark module, and the areas format and version information take. */
function functionPatterns(version: number): {modules: boolean[][]; reserved: boolean[][]} {
  const size = 17 + 4 * version
  const modules = Array.from({length: size}, () => Array.from({length: size}, () => false))
  const reserved = Array.from({length: size}, () => Array.from({length: size}, () => false))
  const set = (row: number, col: number, dark: boolean): void => {
    modules[row]![col] = dark
    reserved[row]![col] = true
  }
  for (let i = 0; i < size; i++) {
    set(6, i, i % 2 === 0)
    set(i, 6, i % 2 === 0)
  }
  // Finders (7×7, ring of dark, light ring, 3×3 dark core) with their light separators.
  for (const [r0, c0] of [
    [0, 0],
    [0, size - 7],
    [size - 7, 0],
  ] as const)
    for (let dr = -1; dr <= 7; dr++)
      for (let dc = -1; dc <= 7; dc++) {
        const row = r0 + dr
        const col = c0 + dc
        if (row < 0 || col < 0 || row >= size || col >= size) continue
        const ring = Math.max(Math.abs(dr - 3), Math.abs(dc - 3))
        set(row, col, ring !== 2 && ring !== 4)
      }
  const centres = ALIGN[version - 1]!
  for (const r of centres)
    for (const c of centres) {
      // Not over a finder: the three corners where a centre is 6 on one axis and at a finder on the other.
      if ((r === 6 && c === 6) || (r === 6 && c === size - 7) || (r === size - 7 && c === 6)) continue
      for (let dr = -2; dr <= 2; dr++) for (let dc = -2; dc <= 2; dc++) set(r + dr, c + dc, Math.max(Math.abs(dr), Math.abs(dc)) !== 1)
    }
  // Format information areas (drawn per mask later) and the dark module beside the bottom-left finder.
  for (let i = 0; i < 9; i++) {
    reserved[8]![i] = true
    reserved[i]![8] = true
  }
  for (let i = 0; i < 8; i++) {
    reserved[8]![size - 1 - i] = true
    reserved[size - 1 - i]![8] = true
  }
  set(size - 8, 8, true)
  if (version >= 7) {
    // Version information: 6 bits and a BCH(18,6) remainder, in two 6×3 blocks.
    let rem = version
    for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25)
    const bits = (version << 12) | rem
    for (let i = 0; i < 18; i++) {
      const dark = ((bits >>> i) & 1) === 1
      const a = size - 11 + (i % 3)
      const b = Math.floor(i / 3)
      set(a, b, dark)
      set(b, a, dark)
    }
  }
  return {modules, reserved}
}

/** Codeword bits, most significant first, in the two-column zigzag from the bottom right (column 6 skipped). */
function placeCodewords(modules: boolean[][], reserved: boolean[][], codewords: readonly number[]): void {
  const size = modules.length
  let bit = 0
  let upward = true
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5
    for (let step = 0; step < size; step++) {
      const row = upward ? size - 1 - step : step
      for (const col of [right, right - 1]) {
        if (reserved[row]![col]) continue
        // Bits past the last codeword (the remainder bits) stay light.
        const byte = codewords[bit >>> 3]
        modules[row]![col] = byte !== undefined && ((byte >>> (7 - (bit & 7))) & 1) === 1
        bit++
      }
    }
    upward = !upward
  }
}

const MASKS: readonly ((r: number, c: number) => boolean)[] = [
  (r, c) => (r + c) % 2 === 0,
  (r) => r % 2 === 0,
  (_r, c) => c % 3 === 0,
  (r, c) => (r + c) % 3 === 0,
  (r, c) => (Math.floor(r / 2) + Math.floor(c / 3)) % 2 === 0,
  (r, c) => ((r * c) % 2) + ((r * c) % 3) === 0,
  (r, c) => (((r * c) % 2) + ((r * c) % 3)) % 2 === 0,
  (r, c) => (((r + c) % 2) + ((r * c) % 3)) % 2 === 0,
]

function applyMask(modules: boolean[][], reserved: boolean[][], mask: number): void {
  const flip = MASKS[mask]!
  for (let r = 0; r < modules.length; r++)
    for (let c = 0; c < modules.length; c++) if (!reserved[r]![c] && flip(r, c)) modules[r]![c] = !modules[r]![c]
}

/** The 15 format bits: level and mask, a BCH(15,5) remainder, XOR 0x5412. */
export function formatBits(level: QrLevel, mask: number): number {
  const data = (LEVEL_BITS[level] << 3) | mask
  let rem = data
  for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537)
  return ((data << 10) | rem) ^ 0x5412
}

/** Both copies of the format information (bit 14 first along the top-left finder's row, as the standard's figure). */
function drawFormat(modules: boolean[][], size: number, level: QrLevel, mask: number): void {
  const bits = formatBits(level, mask)
  const bitAt = (i: number): boolean => ((bits >>> i) & 1) === 1
  // Around the top-left finder: bits 0–7 down column 8 (skipping the timing row), 8–14 leftwards along row 8 (skipping the timing column).
  for (let i = 0; i <= 5; i++) modules[i]![8] = bitAt(i)
  modules[7]![8] = bitAt(6)
  modules[8]![8] = bitAt(7)
  modules[8]![7] = bitAt(8)
  for (let i = 9; i < 15; i++) modules[8]![14 - i] = bitAt(i)
  // The second copy: bits 0–7 along row 8 from the right edge, 8–14 up column 8 to the bottom edge.
  for (let i = 0; i < 8; i++) modules[8]![size - 1 - i] = bitAt(i)
  for (let i = 8; i < 15; i++) modules[size - 15 + i]![8] = bitAt(i)
}

/** The standard's four penalty rules; the mask with the lowest total is used. */
export function penalty(m: readonly (readonly boolean[])[]): number {
  const size = m.length
  let score = 0
  const at = (r: number, c: number, rows: boolean): boolean => (rows ? m[r]![c]! : m[c]![r]!)
  for (const rows of [true, false])
    for (let line = 0; line < size; line++) {
      // Rule 1: a run of five or more modules of one colour scores 3, plus 1 per module past five.
      let run = 1
      for (let i = 1; i <= size; i++) {
        if (i < size && at(line, i, rows) === at(line, i - 1, rows)) run++
        else {
          if (run >= 5) score += run - 2
          run = 1
        }
      }
      // Rule 3: dark-light-dark-dark-dark-light-dark with four light modules before or after: 40.
      for (let i = 0; i + 11 <= size; i++) {
        const w = Array.from({length: 11}, (_, k) => at(line, i + k, rows))
        const core = (o: number): boolean => w[o]! && !w[o + 1] && w[o + 2]! && w[o + 3]! && w[o + 4]! && !w[o + 5] && w[o + 6]!
        const light = (from: number): boolean => !w[from] && !w[from + 1] && !w[from + 2] && !w[from + 3]
        if ((core(0) && light(7)) || (light(0) && core(4))) score += 40
      }
    }
  // Rule 2: each 2×2 block of one colour: 3.
  for (let r = 0; r + 1 < size; r++)
    for (let c = 0; c + 1 < size; c++) {
      const v = m[r]![c]
      if (m[r]![c + 1] === v && m[r + 1]![c] === v && m[r + 1]![c + 1] === v) score += 3
    }
  // Rule 4: 10 per full 5% the dark share is away from half.
  const dark = m.reduce((n, row) => n + row.filter(Boolean).length, 0)
  score += Math.floor(Math.abs((dark * 100) / (size * size) - 50) / 5) * 10
  return score
}
