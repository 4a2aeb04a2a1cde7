/**
 * Small pure helpers every adapter may use: loose field access, times (a fast path for the ISO
 * form agents write), one-line text. Pure.
 */

export type Json = Record<string, unknown>

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function str(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null
}

export function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}

const DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22]

/** `YYYY-MM-DDTHH:MM:SS.sssZ`, the form every agent here writes: read by hand, ~5× faster than Date.parse. */
function fastIso(s: string): number | null {
  if (s.length !== 24 || s.charCodeAt(4) !== 45 || s.charCodeAt(10) !== 84 || s.charCodeAt(19) !== 46 || s.charCodeAt(23) !== 90)
    return null
  for (const i of DIGITS) {
    const c = s.charCodeAt(i)
    if (c < 48 || c > 57) return null
  }

  const d = (i: number): number => s.charCodeAt(i) - 48
  const y = d(0) * 1000 + d(1) * 100 + d(2) * 10 + d(3)
  const ms = Date.UTC(
    y,
    d(5) * 10 + d(6) - 1,
    d(8) * 10 + d(9),
    d(11) * 10 + d(12),
    d(14) * 10 + d(15),
    d(17) * 10 + d(18),
    d(20) * 100 + d(21) * 10 + d(22),
  )
  return Number.isNaN(ms) ? null : ms
}

/** ISO 8601 string, Date or epoch ms -> epoch ms. */
export function toMs(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.getTime()
  if (typeof value !== 'string' || value === '') return null
  const fast = fastIso(value)
  if (fast !== null) return fast
  const ms = Date.parse(value)
  return Number.isNaN(ms) ? null : ms
}

export function later(a: number | null, b: number | null): number | null {
  if (a === null) return b
  if (b === null) return a
  return b > a ? b : a
}

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

/** Whitespace collapsed, trimmed, at most max characters; null when nothing is left. */
export function oneLine(text: string, max = 500): string | null {
  const clean = text.replace(/\s+/g, ' ').trim()
  return clean === '' ? null : clip(clean, max)
}

/** The first non-empty line, trimmed and collapsed, at most max characters. */
export function firstLine(text: string, max = 200): string | null {
  for (const line of text.split(/\r?\n/)) {
    const clean = oneLine(line, max)
    if (clean !== null) return clean
  }

  return null
}
