/**
 * The Cursor agent CLI adapter (docs/agents.md, docs/hooks.md): each chat's `store.db` (SQLite, opened
 * read-only, tables probed first) and the newer `meta.json` sidecar give the title, model, cwd,
 * counts and a weak reading of the turn; the hooks (`beforeSubmitPrompt` → working, `stop` →
 * settled) give the present. Cursor keeps no process registry and writes no permission prompt.
 */
import type {Adapter, Contribution, FileMatch} from '../../core/ingest/adapter.js'
import type {AgentModule} from '../module.js'
import {composeCursor} from './compose.js'
import {cursorHookSpec} from './hooks-spec.js'
import {cursorHooks} from './hooks.js'
import {parseCursorMeta} from './meta.js'
import {cursorScreenPatterns} from './screen-patterns.js'
import {readCursorStore} from './store.js'
import {SESSION_VARIABLE} from './identity.js'
import {cursorRules} from './rules.js'

export function parseCursorWhole(path: string, text: string, match: FileMatch & {kind: 'whole'}): Contribution[] {
  return match.role === 'meta' ? parseCursorMeta(path, text, match.nativeId ?? '') : []
}

export const cursor: Adapter = {
  ...cursorRules,
  compose: composeCursor,
  hooks: cursorHooks,
  label: 'Cursor agent',
  parseWhole: parseCursorWhole,
  readSqlite: readCursorStore,
}

/** Everything cast knows about this agent (src/adapters/module.ts); listed once in src/adapters/index.ts. */
export const cursorAgent: AgentModule = {
  env: [],
  hooks: {reducer: cursorHooks, spec: cursorHookSpec},
  id: cursor.agent,
  instructionsFile: 'AGENTS.md',
  names: {aliases: ['cursor-agent', 'cursor-cli'], short: 'Cursor'},
  reading: cursor,
  screen: cursorScreenPatterns,
  sessionVariable: SESSION_VARIABLE,
}

export {composeCursor} from './compose.js'
export {cursorHooks} from './hooks.js'
export {parseCursorMeta} from './meta.js'
export {chatsDir, cursorHome, cursorRoots, cwdBucket, matchCursorFile} from './paths.js'
export {decodeMetaValue, isPlaceholderName, promptText, readCursorStore, readMeta, readRoot, workspacePath} from './store.js'
