/**
 * A park as `cast sessions --json` (`park`), the listing row and `cast explain` show it.
 */
import {formatAge} from '../../core/model/age.js'
import {shortId} from '../../core/model/ids.js'
import type {Park} from '../../core/model/parks.js'
import {oneLine} from '../../core/model/sanitize.js'

export interface ParkJson {
  until: string
  until_short_id: string
  note: string | null
  since: string
}

/** The holding park's JSON, or null (none, or it ended). */
export function parkJson(p: Park | null | undefined): ParkJson | null {
  if (p === null || p === undefined || p.endedAt !== null) return null
  return {note: p.note, since: new Date(p.madeAt).toISOString(), until: p.untilId, until_short_id: shortId(p.untilId)}
}

/** The row's park line: "parked until ab12cde is ready (2h): note". */
export function parkLine(p: Park | null | undefined, now: number): string | null {
  if (p === null || p === undefined) return null
  const note = p.note === null ? '' : `: ${oneLine(p.note)}`
  if (p.endedAt !== null) {
    const how =
      p.ended === 'ready'
        ? 'released: it was ready'
        : p.ended === 'gone'
          ? 'released: it went away'
          : p.ended === 'stale'
            ? 'dropped: 14 days unvisited'
            : 'ended: the stash was lifted'
    return `parked until ${shortId(p.untilId)}, ${how} (${formatAge(Math.max(0, now - p.endedAt))})${note}`
  }
  return `parked until ${shortId(p.untilId)} is ready (parked ${formatAge(Math.max(0, now - p.madeAt))})${note}`
}
