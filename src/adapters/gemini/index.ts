/**
 * The Gemini CLI adapter (docs/agents/gemini.md, docs/hooks.md): chat files under `~/.gemini/tmp/<project>/chats/`
 * in both formats (the ≥ 0.39 append-only log, read incrementally; the ≤ 0.38 JSON rewritten
 * whole), subagent chats, and the hooks (BeforeAgent/AfterAgent for the turn, Notification
 * ToolPermission for a permission prompt, which the files never show). Gemini CLI keeps no
 * process registry.
 */
import type {Adapter, FileMatch, JsonlParser} from '../../core/ingest/adapter.js'
import {composeWithHolds, withHolds} from '../kit/holds.js'
import {geminiHolds} from './usage.js'
import type {AgentModule} from '../module.js'
import {chatContribution, feedChatLine, initChat, readLegacy, type ChatState} from './chat.js'
import {composeGemini} from './compose.js'
import {geminiHookSpec} from './hooks-spec.js'
import {geminiHooks} from './hooks.js'
import {geminiScreenPatterns} from './screen-patterns.js'
import {SESSION_VARIABLE} from './identity.js'
import {geminiRules} from './rules.js'

export const chatLogParser: JsonlParser<ChatState> = {
  contributions: (state, path, match) => chatContribution(state, path, match),
  init: () => initChat(),
  line: feedChatLine,
}

export function parseGeminiWhole(path: string, text: string, match: FileMatch & {kind: 'whole'}): ReturnType<typeof chatContribution> {
  if (match.role !== 'chat') return []
  // A file caught mid-rewrite does not parse: the engine counts it and reads it again on the next change.
  return chatContribution(readLegacy(text), path, match)
}

export const gemini: Adapter = {
  ...geminiRules,
  // The CLI the conformance suite drives (test/conformance), and the version it last passed with.
  cli: {bin: 'gemini', package: '@google/gemini-cli', testedVersion: '0.61.0'},
  compose: composeWithHolds(composeGemini),
  hooks: geminiHooks,
  jsonl: withHolds(chatLogParser, geminiHolds),
  label: 'Gemini CLI',
  parseWhole: parseGeminiWhole,
}

/** Everything cast knows about this agent (src/adapters/module.ts); listed once in src/adapters/index.ts. */
export const geminiAgent: AgentModule = {
  env: ['GEMINI_CLI_HOME'],
  hooks: {reducer: geminiHooks, spec: geminiHookSpec},
  id: gemini.agent,
  instructionsFile: 'GEMINI.md',
  names: {aliases: ['gemini-cli'], short: 'Gemini'},
  reading: gemini,
  screen: geminiScreenPatterns,
  sessionVariable: SESSION_VARIABLE,
}

export {chatContribution, feedChatLine, initChat, isSettled, readLegacy, WINDOW} from './chat.js'
export type {ChatState} from './chat.js'
export {composeGemini} from './compose.js'
export {geminiHooks} from './hooks.js'
export {geminiHome, geminiRoots, matchGeminiFile, parseProjectsJson, projectHash, projectRootOf, resetProjectRoots} from './paths.js'
