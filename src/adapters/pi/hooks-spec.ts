/** Why `cast hooks install pi` has nothing to install. */
import type {NoHooks} from '../../core/ingest/hook-spec.js'
import {AGENT_ID} from './identity.js'

export const piNoHooks: NoHooks = {
  agent: AGENT_ID,
  reason: 'pi has no shell hooks (its extension API only); cast reads its session files.',
}
