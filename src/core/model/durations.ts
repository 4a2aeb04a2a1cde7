/**
 * Durations, points in time and ages as users type and read them. Pure: every time is relative
 * to the `now` passed in, never the clock.
 */
import * as chrono from 'chrono-node'

import {parseDuration} from './duration-text.js'

const EPOCH_MS = /^\d+$/
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/

/**
 * A point in time (epoch ms), or null: epoch ms ('1780000000000'), ISO 8601 ('2026-11-29T21:31:00Z';
 * a date alone is local midnight), or natural language read against `now` and looking forward
 * ('tomorrow 9am', 'in 2 hours', '3pm', 'friday'). Local times use the machine's time zone.
 */
export function parseTime(text: string, now: number): number | null {
  const trimmed = text.trim()
  if (trimmed === '') return null
  if (EPOCH_MS.test(trimmed)) return Number(trimmed)

  const date = ISO_DATE.exec(trimmed)
  if (date) return new Date(Number(date[1]), Number(date[2]) - 1, Number(date[3])).getTime()
  if (ISO_DATE_TIME.test(trimmed)) {
    const ms = Date.parse(trimmed)
    return Number.isNaN(ms) ? null : ms
  }

  const parsed = chrono.parseDate(trimmed, new Date(now), {forwardDate: true})
  if (parsed) return parsed.getTime()
  // 'in 90s', 'in 1h30m': chrono reads spelled-out units; the short forms go through parseDuration.
  const inDuration = /^in\s+(.+)$/i.exec(trimmed)
  const ms = inDuration?.[1] === undefined ? null : parseDuration(inDuration[1])
  return ms === null ? null : now + ms
}

export {formatAge} from './age.js'
export {parseDuration} from './duration-text.js'
