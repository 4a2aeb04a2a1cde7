/**
 * The daemon and `cast snooze sweep` deliver due scheduled messages through one function:
 * `deliverDueSchedules` (src/lib/agents/deliver.ts) claims each due row once, then sends it. This
 * returns how many went out.
 */
import type {Store} from '../../core/store/store.js'
import {deliverDueSchedules} from './deliver.js'
import type {Env} from '../home/env.js'

export async function deliverDue(store: Store, env: Env, clock: () => number, me: string): Promise<number> {
  const reports = await deliverDueSchedules(store, env, clock, me)
  return reports.filter((r) => r.ok).length
}
