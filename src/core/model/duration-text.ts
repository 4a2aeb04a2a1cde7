/**
 * Durations as users type them, apart from durations.ts (which reads points in time with
 * chrono-node), so what parses only durations (config-schema.ts) never loads chrono-node. Pure.
 */
import parse from 'parse-duration'

/** One or more `<number><unit>` groups: '90s', '15m', '2h', '1d', '1h30m', '1h 30m', '2 hours'. */
const DURATION_SHAPE = /^(?:\d+(?:\.\d+)?\s*[a-zµ]+\s*)+$/i
const DURATION_PART = /\d+(?:\.\d+)?\s*[a-zµ]+/gi

/**
 * A duration in ms, or null when the text is not one. Every number needs a unit (a bare '15' is
 * refused: minutes or seconds?), every unit must be known, and nothing else may appear.
 */
export function parseDuration(text: string): number | null {
  const trimmed = text.trim()
  if (!DURATION_SHAPE.test(trimmed)) return null
  for (const part of trimmed.match(DURATION_PART) ?? []) {
    if (parse(part) === null) return null
  }

  const ms = parse(trimmed)
  return ms === null || !Number.isFinite(ms) ? null : Math.round(ms)
}
