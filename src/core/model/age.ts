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
