/** Why `cast hooks install pi` has nothing to install. */
import type {NoHooks} from '../../core/ingest/hook-spec.js'

export const piNoHooks: NoHooks = {
  agent: 'pi',
  reason: 'pi has no shell hooks (its extension API only); cast reads its session files.',
}
