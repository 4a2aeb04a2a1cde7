/**
 * The one list of agents cast knows, in the order `cast doctor` lists them: one line per agent,
 * its folder's light definition (src/adapters/module.ts AgentDefinition). The registry
 * (src/adapters/index.ts) loads each definition's module; the fast paths' lists
 * (src/adapters/light.ts, src/adapters/session-variables.ts) are built from the definitions alone.
 *
 * Adding an agent: its folder under src/adapters/ (with a definition.ts), and one line here.
 */
import {claudeCodeDefinition} from './claude-code/definition.js'
import {codexDefinition} from './codex/definition.js'
import {copilotDefinition} from './copilot/definition.js'
import {cursorDefinition} from './cursor/definition.js'
import {geminiDefinition} from './gemini/definition.js'
import type {AgentDefinition} from './module.js'
import {opencodeDefinition} from './opencode/definition.js'
import {piDefinition} from './pi/definition.js'

export const AGENTS: readonly AgentDefinition[] = [
  claudeCodeDefinition,
  codexDefinition,
  opencodeDefinition,
  piDefinition,
  geminiDefinition,
  copilotDefinition,
  cursorDefinition,
]
