/**
 * The OpenCode adapter (docs/agents/opencode.md, docs/hooks.md, docs/screen-and-doctor.md): the SQLite database of OpenCode ≥ 1.2
 * (opened read-only by the engine) and the storage/ JSON files of older releases.
 *
 * OpenCode keeps pending permission prompts in its server's memory and writes no process
 * registry, so the database gives: settled or working, open questions (a running `question`
 * tool), named errors, compaction and subagent children (`parent_id`, folded under their parent);
 * its log (`log/opencode.log`, log.ts) gives the pending permissions (`message=asking`).
 */
import type {Adapter} from '../../core/ingest/adapter.js'
import type {AgentModule} from '../module.js'
import {composeOpencode} from './compose.js'
import {readOpencodeDb} from './db.js'
import {opencodeNoHooks} from './hooks-spec.js'
import {opencodeLogParser} from './log.js'
import {opencodeScreenPatterns} from './screen-patterns.js'
import {parseStorageFile} from './storage.js'
import {SESSION_VARIABLE} from './identity.js'
import {opencodeRules} from './rules.js'

export const opencode: Adapter = {
  ...opencodeRules,
  // The CLI the conformance suite drives (test/conformance), and the version it last passed with.
  cli: {bin: 'opencode', package: 'opencode-ai', testedVersion: '1.18.33'},
  compose: composeOpencode,
  jsonl: opencodeLogParser,
  label: 'OpenCode',
  parseWhole: parseStorageFile,
  readSqlite: (db, path) => readOpencodeDb(db, path),
}

/** Everything cast knows about this agent (src/adapters/module.ts); listed once in src/adapters/index.ts. */
export const opencodeAgent: AgentModule = {
  env: ['XDG_DATA_HOME'],
  hooks: {none: opencodeNoHooks.reason},
  id: opencode.agent,
  instructionsFile: 'AGENTS.md',
  names: {aliases: ['open-code'], short: 'OpenCode'},
  reading: opencode,
  screen: opencodeScreenPatterns,
  sessionVariable: SESSION_VARIABLE,
}

export {composeOpencode} from './compose.js'
export {clearOpencodeCache, readOpencodeDb} from './db.js'
export {errorText, isPlaceholderTitle, summarize} from './model.js'
export type {OcMessage, OcPart, OcSession} from './model.js'
export {askText, logFields, opencodeLogParser} from './log.js'
export {matchOpencodeFile, opencodeDataDir, opencodeRoots, skipOpencodeDir} from './paths.js'
export {parseStorageFile} from './storage.js'
