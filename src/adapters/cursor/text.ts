/**
 * Small pure helpers for the Cursor parsers: loose field access, times, one-line text.
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

/** ISO 8601 string or epoch ms -> epoch ms. */
export function toMs(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  if (typeof value !== 'string' || value === '') return null
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
