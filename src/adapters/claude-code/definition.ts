/**
 * This agent's light definition: what the fast paths need without loading its parsers (its id,
 * session variable, path rules, screen patterns), and the loader of the whole module (index.ts).
 * Listed once, in src/adapters/agents.ts.
 */
import type {AgentDefinition} from '../module.js'
import {AGENT_ID, SESSION_VARIABLE} from './identity.js'
import {claudeCodeRules} from './rules.js'
import {claudeScreenPatterns} from './screen-patterns.js'

export const claudeCodeDefinition: AgentDefinition = {
  id: AGENT_ID,
  load: async () => (await import('./index.js')).claudeCodeAgent,
  openFileProcesses: [],
  rules: claudeCodeRules,
  screen: claudeScreenPatterns,
  sessionVariable: SESSION_VARIABLE,
}
