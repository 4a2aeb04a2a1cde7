/**
 * This agent's light definition: what the fast paths need without loading its parsers (its id,
 * session variable, path rules, screen patterns), and the loader of the whole module (index.ts).
 * Listed once, in src/adapters/agents.ts.
 */
import type {AgentDefinition} from '../module.js'
import {AGENT_ID, OPEN_FILE_PROCESSES, SESSION_VARIABLE} from './identity.js'
import {codexRules} from './rules.js'
import {codexScreenPatterns} from './screen-patterns.js'

export const codexDefinition: AgentDefinition = {
  id: AGENT_ID,
  load: async () => (await import('./index.js')).codexAgent,
  openFileProcesses: OPEN_FILE_PROCESSES,
  rules: codexRules,
  screen: codexScreenPatterns,
  sessionVariable: SESSION_VARIABLE,
}
