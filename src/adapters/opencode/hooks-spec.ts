/** Why `cast hooks install opencode` has nothing to install. */
import type {NoHooks} from '../../core/ingest/hook-spec.js'
import {AGENT_ID} from './identity.js'

export const opencodeNoHooks: NoHooks = {
  agent: AGENT_ID,
  reason: 'OpenCode has no shell hooks (plugins and its HTTP server only); cast reads its files and, when reachable, its server.',
}
