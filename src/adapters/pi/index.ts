/**
 * The pi adapter (docs/agents/pi.md, docs/hooks.md, docs/screen-and-doctor.md): one append-only JSONL file per session, read
 * incrementally. pi keeps no process registry and offers no shell hooks (only an in-process
 * extension API), so the file is the whole story: the leaf assistant's stopReason says whether the
 * turn ended, and a reply still streaming is not written yet. pi has no permission prompts.
 */
import type {Adapter} from '../../core/ingest/adapter.js'
import {withHolds} from '../kit/holds.js'
import {piHolds} from './usage.js'
import type {AgentModule} from '../module.js'
import {piNoHooks} from './hooks-spec.js'
import {piScreenPatterns} from './screen-patterns.js'
import {piParser} from './session.js'
import {SESSION_VARIABLE} from './identity.js'
import {piRules} from './rules.js'

export const pi: Adapter = {
  ...piRules,
  // The CLI the conformance suite drives (test/conformance), and the version it last passed with.
  cli: {bin: 'pi', package: '@mariozechner/pi-coding-agent', testedVersion: '0.73.1'},
  jsonl: withHolds(piParser, piHolds),
  label: 'pi',
}

/** Everything cast knows about this agent (src/adapters/module.ts); listed once in src/adapters/index.ts. */
export const piAgent: AgentModule = {
  env: ['PI_CODING_AGENT_DIR'],
  hooks: {none: piNoHooks.reason},
  id: pi.agent,
  instructionsFile: 'AGENTS.md',
  names: {aliases: ['pi-coding-agent'], short: 'pi'},
  reading: pi,
  screen: piScreenPatterns,
  sessionVariable: SESSION_VARIABLE,
}

export {agentDir, matchPiFile, piRoots, sessionIdOf, sessionsDir} from './paths.js'
export {feedPi, initPi, isSettled, piContribution, piParser, piTitle} from './session.js'
export type {PiState, Tail} from './session.js'
