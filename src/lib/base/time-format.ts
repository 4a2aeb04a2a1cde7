/**
 * One time style: people read local time in the style of `localTime` (`14:05`
 * today, else `2026-11-29 14:05`); JSON carries ISO 8601 UTC. Human output that has a time as
 * epoch ms or as the ISO string of its JSON object prints it through here.
 */
import {localTime} from '../../core/model/age.js'

/** `t` (epoch ms, or an ISO 8601 string) as local time for people; `none` when there is no time. */
export function humanTime(t: number | string | null | undefined, now: number, none = 'never'): string {
  if (t === null || t === undefined || t === '') return none
  const ms = typeof t === 'number' ? t : Date.parse(t)
  return Number.isFinite(ms) ? localTime(ms, now) : String(t)
}
