/**
 * Checks made when a teammate's action runs on this machine, after its signature verified
 * (protocol.ts verifyAction) and before anything is typed: the requester must still be a member
 * of the team (the admin's `cast team remove` may have come after the action was queued, or
 * while a claimed batch ran). A refusal names the requesting machine with its key's fingerprint,
 * so a look-alike name cannot pass for a teammate's.
 */
import type {Pool} from 'pg'

import {shownName} from '../../core/model/safe-name.js'
import {requesterAdmitted} from '../../core/store/team/machines.js'
import {fingerprint} from './keys.js'
import type {Pinned, QueuedAction} from './protocol.js'

/** Why the action may not run now (its requester left the team), or null. */
export async function standing(pool: Pool, a: QueuedAction): Promise<string | null> {
  if (await requesterAdmitted(pool, a.requestedFrom, a.requestedBy)) return null
  return `${shownName(a.requestedBy, 'identity')} is no longer a member of the team (removed, or ${shownName(a.requestedFrom, 'device')} left it) since the action was queued; nothing was done`
}

/** A refusal line with who asked, from which machine, with which key. */
export function refusalLine(error: string, a: QueuedAction, pinned: Pinned | null): string {
  const key = pinned ? fingerprint(pinned.pubkey) : 'no trusted key'
  return `${error} [asked by ${shownName(a.requestedBy, 'identity')} from ${shownName(a.requestedFrom, 'device')}, ${key}]`
}
