/**
 * `cast stash SESSION… --until-ready OTHER [--note TEXT]`: stash sessions and park them on
 * OTHER (src/core/model/parks.ts). Every refusal is decided before anything changes; the stash
 * and the parks are written in one transaction.
 */
import type {Park} from '../../core/model/parks.js'
import type {Store} from '../../core/store/store.js'

export interface ParkRequest {
  readonly ids: readonly string[]
  readonly otherId: string
  readonly note: string | null
  readonly hide: boolean
  readonly now: number
  readonly who: string
}

export type ParkResult =
  | {readonly ok: true; readonly action: number | null; readonly sessions: readonly string[]}
  | {readonly ok: false; readonly kind: 'usage' | 'refused'; readonly message: string}

export async function parkSessions(store: Store, r: ParkRequest): Promise<ParkResult> {
  const {isParkRefusal, planPark} = await import('../../core/model/parks.js')
  const {activeParks, savePark} = await import('../../core/store/parks.js')
  const {applyTriage} = await import('../../core/store/triage.js')
  const {planStash} = await import('../../core/model/triage.js')
  const other = store.loadSessions([r.otherId])[0]
  const killed = other === undefined || other.bucket === 'killed' || other.bucket === 'dismissed' || other.records.killedAt !== null
  const active = new Map(activeParks(store))
  const parks: Park[] = []
  for (const id of r.ids) {
    const p = planPark(id, {id: r.otherId, killed}, r.note, active, r.now, 0)
    if (isParkRefusal(p)) return {kind: p.kind, message: p.message, ok: false}
    active.set(id, p)
    parks.push(p)
  }
  return store.tx(() => {
    const applied = applyTriage(store, {now: r.now, verb: 'stash --until-ready', who: r.who}, r.ids, (row) => planStash(row, r.now, r.hide))
    // Only the other session's transitions after this point count toward the release.
    const seq = store.lastSeq()
    for (const p of parks) savePark(store, {...p, afterSeq: seq})
    return {action: applied.action, ok: true, sessions: applied.sessions}
  })
}
