/**
 * A teammate's session I neither own nor run (`cast web --team`): the page shows it, offers no
 * verb on it, and says why instead of acting; the server refuses any write to it as well
 * (src/lib/web/server.ts writable).
 */
import {type Listing, readOnlyOf, type Session} from './api.js'
import {oneLine} from './dom.js'

/** True, and why said, when the page may not act on the session. */
export function refuseReadOnly(listing: Listing | null, s: Session | null | undefined, say: (message: string) => void): boolean {
  const line = readOnlyOf(listing, s?.id)
  if (line !== null) say(oneLine(line, 300))
  return line !== null
}
