/** Ages as rows show them. Pure; kept apart from durations.ts so listing never loads chrono-node. */
const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** How long ago, for rows: 'just now', '49 min ago', '1 hour ago', '5 hours ago', '3 days ago'. */
export function formatAge(ms: number): string {
  if (!Number.isFinite(ms) || ms < MINUTE) return 'just now'
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)} min ago`
  if (ms < DAY) return plural(Math.floor(ms / HOUR), 'hour')
  return plural(Math.floor(ms / DAY), 'day')
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'} ago`
}

/** How far ahead a due time is, as `cast schedule` prints it: 'in 40 s', 'in 5 min', 'in 2.5 h', 'in 3 days'. */
export function formatIn(ms: number): string {
  if (ms < 60_000) return `in ${Math.max(0, Math.round(ms / 1000))} s`
  if (ms < 3_570_000) return `in ${Math.round(ms / 60_000)} min`
  if (ms < 2 * 86_400_000) return `in ${Math.round(ms / 360_000) / 10} h`
  return `in ${Math.round(ms / 8_640_000) / 10} days`
}

/**
 * The one time style for people: local time, `14:05` today, else
 * `2026-11-29 14:05`. JSON carries ISO 8601 UTC.
 */
export function localTime(t: number, now: number): string {
  const d = new Date(t)
  const p = (n: number): string => String(n).padStart(2, '0')
  const clock = `${p(d.getHours())}:${p(d.getMinutes())}`
  const n = new Date(now)
  const sameDay = d.getFullYear() === n.getFullYear() && d.getMonth() === n.getMonth() && d.getDate() === n.getDate()
  return sameDay ? clock : `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${clock}`
}
