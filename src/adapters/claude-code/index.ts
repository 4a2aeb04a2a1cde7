/**
 * The Claude Code adapter (agent-formats §1, §10.1): transcripts, the process registry and hooks.
 */
import type {Adapter} from '../../core/ingest/adapter.js'
import {composeClaude} from './compose.js'
import {claudeHooks} from './hooks.js'
import {match, roots, skipDir} from './paths.js'
import {parseWhole} from './registry.js'
import {transcriptParser} from './transcript.js'

export const claudeCode: Adapter = {
  agent: 'claude_code',
  // The CLI the conformance suite drives (test/conformance), and the version it last passed with.
  cli: {bin: 'claude', package: '@anthropic-ai/claude-code', testedVersion: '2.1.328'},
  compose: composeClaude,
  hooks: claudeHooks,
  jsonl: transcriptParser,
  label: 'Claude Code',
  match,
  parseWhole,
  roots,
  skipDir,
}

export {composeClaude} from './compose.js'
export {claudeHooks} from './hooks.js'
export {configDir} from './paths.js'
export {transcriptParser} from './transcript.js'
