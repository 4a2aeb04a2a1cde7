/**
 * The daemon and `cast snooze sweep` deliver due scheduled messages through one function. The
 * delivery module (src/lib/deliver.ts) exports `deliverDueSchedules`; until it exists, nothing
 * is due.
 */
import type {Store} from '../core/store/store.js'
import type {Env} from './env.js'

export async function deliverDue(store: Store, env: Env, clock: () => number, me: string): Promise<number> {
  let mod: {deliverDueSchedules?: (s: Store, e: Env, c: () => number, m: string) => Promise<unknown> | unknown}
  try {
    mod = (await import('./deliver.js' as string)) as typeof mod
  } catch {
    return 0
  }

  if (!mod.deliverDueSchedules) return 0
  const r = await mod.deliverDueSchedules(store, env, clock, me)
  if (typeof r === 'number') return r
  if (Array.isArray(r)) return r.length
  if (r && typeof r === 'object' && 'delivered' in r) return Number((r as {delivered: unknown}).delivered) || 0
  return 0
}
