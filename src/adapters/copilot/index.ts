/**
 * The Copilot CLI adapter (docs/agents/copilot.md, docs/hooks.md): the per-session event log (read
 * incrementally), workspace.yaml (name, cwd), the `inuse.<pid>.lock` liveness file checked
 * against the process table, subagent children, and the hooks where the CLI runs them.
 */
import type {Adapter, Contribution, FileMatch} from '../../core/ingest/adapter.js'
import {composeWithHolds, withHolds} from '../kit/holds.js'
import {copilotHolds} from './usage.js'
import {type AgentModule, UUID_SYNTAX} from '../module.js'
import {composeCopilot} from './compose.js'
import {eventsParser} from './events.js'
import {copilotHookSpec} from './hooks-spec.js'
import {copilotHooks} from './hooks.js'
import {parseLegacy} from './legacy.js'
import {copilotScreenPatterns} from './screen-patterns.js'
import {parseLock, parseWorkspace} from './workspace.js'
import {SESSION_VARIABLE} from './identity.js'
import {copilotRules} from './rules.js'

export function parseCopilotWhole(path: string, text: string, match: FileMatch & {kind: 'whole'}): Contribution[] {
  if (match.role === 'lock') return parseLock(path, text)
  if (match.role === 'workspace') return parseWorkspace(path, text, match.nativeId ?? '')
  if (match.role === 'legacy') return parseLegacy(path, text)
  return []
}

export const copilot: Adapter = {
  ...copilotRules,
  // The CLI the conformance suite drives (test/conformance), and the version it last passed with.
  cli: {bin: 'copilot', package: '@github/copilot', testedVersion: '1.0.102'},
  compose: composeWithHolds(composeCopilot),
  hooks: copilotHooks,
  jsonl: withHolds(eventsParser, copilotHolds),
  label: 'Copilot CLI',
  parseWhole: parseCopilotWhole,
}

/** Everything cast knows about this agent (src/adapters/module.ts); listed once in src/adapters/index.ts. */
export const copilotAgent: AgentModule = {
  // No spawn or resume templates; its session ids are UUIDs all the same.
  commands: {idSyntax: UUID_SYNTAX, templates: {}},
  env: ['COPILOT_CONFIG_DIR', 'COPILOT_HOME'],
  hooks: {reducer: copilotHooks, spec: copilotHookSpec},
  id: copilot.agent,
  instructionsFile: '.github/copilot-instructions.md',
  names: {aliases: ['copilot-cli', 'github-copilot', 'gh-copilot'], short: 'Copilot'},
  reading: copilot,
  screen: copilotScreenPatterns,
  sessionVariable: SESSION_VARIABLE,
}

export {composeCopilot} from './compose.js'
export {eventsContributions, eventsParser, feedEvents, initCopilot, isSettled, permissionText} from './events.js'
export type {CopilotState} from './events.js'
export {copilotHookEvent, copilotHooks} from './hooks.js'
export {copilotHome, copilotRoots, lockPid, matchCopilotFile, sessionStateDir} from './paths.js'
export {parseLock, parseWorkspace} from './workspace.js'
