/**
 * The Claude Code adapter (docs/agents/claude-code.md, docs/hooks.md): transcripts, the process registry and hooks.
 */
import type {Adapter} from '../../core/ingest/adapter.js'
import {composeWithHolds, withHolds} from '../kit/holds.js'
import {type AgentModule, UUID_SYNTAX} from '../module.js'
import {composeClaude} from './compose.js'
import {claudeCodeHookSpec} from './hooks-spec.js'
import {claudeHooks} from './hooks.js'
import {parseWhole} from './registry.js'
import {claudeScreenPatterns} from './screen-patterns.js'
import {claudeAskTabs} from './ask-screen.js'
import {claudeHolds} from './usage.js'
import {transcriptParser} from './transcript.js'
import {tailAskAt} from './asks.js'
import {SESSION_VARIABLE} from './identity.js'
import {claudeCodeRules} from './rules.js'

export const claudeCode: Adapter = {
  ...claudeCodeRules,
  // The CLI the conformance suite drives (test/conformance), and the version it last passed with.
  cli: {bin: 'claude', package: '@anthropic-ai/claude-code', testedVersion: '2.1.328'},
  compose: composeWithHolds(composeClaude),
  hooks: claudeHooks,
  jsonl: withHolds(transcriptParser, claudeHolds),
  label: 'Claude Code',
  parseWhole,
  tailAskAt,
}

/** Everything cast knows about this agent (src/adapters/module.ts); listed once in src/adapters/index.ts. */
export const claudeCodeAgent: AgentModule = {
  askTabs: claudeAskTabs,
  commands: {
    idSyntax: UUID_SYNTAX,
    templates: {
      headless: ['claude', '--session-id', '{id}', '-p', '--', '{prompt}'],
      interactive: ['claude', '--session-id', '{id}', '--', '{prompt}'],
      resume: ['claude', '--resume', '{id}', '-p', '--', '{prompt}'],
    },
  },
  env: ['CLAUDE_CONFIG_DIR'],
  hooks: {reducer: claudeHooks, spec: claudeCodeHookSpec},
  id: claudeCode.agent,
  instructionsFile: 'CLAUDE.md',
  names: {aliases: ['claude-code', 'claudecode'], short: 'Claude'},
  reading: claudeCode,
  screen: claudeScreenPatterns,
  sessionVariable: SESSION_VARIABLE,
}

export {composeClaude} from './compose.js'
export {claudeHooks} from './hooks.js'
export {configDir} from './paths.js'
export {transcriptParser} from './transcript.js'
