/**
 * The Codex CLI adapter (docs/agents/codex.md, docs/hooks.md): rollout transcripts, the /rename index and the
 * notify / lifecycle hooks. Liveness comes from the engine: a running `codex` holds its rollout
 * open, so every rollout a process named in `openFileProcesses` holds gets a process claim.
 */
import type {Adapter} from '../../core/ingest/adapter.js'
import {composeWithHolds, withHolds} from '../kit/holds.js'
import {type AgentModule, UUID_SYNTAX} from '../module.js'
import {composeCodex} from './compose.js'
import {codexHookSpec} from './hooks-spec.js'
import {codexHooks} from './hooks.js'
import {codexHolds} from './usage.js'
import {rolloutParser} from './rollout.js'
import {codexScreenPatterns} from './screen-patterns.js'
import {parseSessionIndex} from './session-index.js'
import {SESSION_VARIABLE} from './identity.js'
import {codexRules} from './rules.js'

export const codex: Adapter = {
  ...codexRules,
  // The CLI the conformance suite drives (test/conformance), and the version it last passed with.
  cli: {bin: 'codex', package: '@openai/codex', testedVersion: '0.169.0'},
  compose: composeWithHolds(composeCodex),
  hooks: codexHooks,
  jsonl: withHolds(rolloutParser, codexHolds),
  label: 'Codex CLI',
  parseWhole: (path, text, match) => (match.role === 'session_index' ? parseSessionIndex(path, text) : []),
  // A rollout's own facts never hold a question or a prompt: the approval an open escalated call
  // asks for is composed only while a live process holds the rollout (rollout.ts, compose.ts).
  tailAskAt: false,
}

/** Everything cast knows about this agent (src/adapters/module.ts); listed once in src/adapters/index.ts. */
export const codexAgent: AgentModule = {
  commands: {
    idSyntax: UUID_SYNTAX,
    templates: {
      headless: ['codex', 'exec', '--cd', '{cwd}', '--', '{prompt}'],
      interactive: ['codex', '--cd', '{cwd}', '--', '{prompt}'],
      resume: ['codex', 'exec', 'resume', '--', '{id}', '{prompt}'],
    },
  },
  env: ['CODEX_HOME'],
  hooks: {reducer: codexHooks, spec: codexHookSpec},
  id: codex.agent,
  instructionsFile: 'AGENTS.md',
  names: {aliases: ['codex-cli', 'openai-codex'], short: 'Codex'},
  reading: codex,
  screen: codexScreenPatterns,
  sessionVariable: SESSION_VARIABLE,
  // 0.169: `codex app-server --listen unix://… --managed-daemon` serves every TUI on a CODEX_HOME (real-clis.md).
  sharedDaemon: (argv) => argv.includes('app-server'),
}

export {composeCodex} from './compose.js'
export {codexHooks} from './hooks.js'
export {codexHome, codexRoots, matchCodexFile, threadIdOf} from './paths.js'
export {feedRollout, initRollout, isSettled, rolloutParser} from './rollout.js'
export type {RolloutState} from './rollout.js'
export {parseSessionIndex} from './session-index.js'
