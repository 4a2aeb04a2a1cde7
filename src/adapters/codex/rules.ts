/**
 * What a sync that finds nothing changed needs of this agent (src/core/ingest/adapter.ts
 * AdapterRules): its path rules and process flags, without its parsers. The adapter in index.ts
 * is built over these; src/adapters/light.ts lists them for src/lib/ingest/quick-sync.ts.
 */
import type {AdapterRules} from '../../core/ingest/adapter.js'
import {AGENT_ID, OPEN_FILE_PROCESSES} from './identity.js'
import {codexRoots, matchCodexFile, skipCodexDir} from './paths.js'
export const codexRules: AdapterRules = {
  agent: AGENT_ID,
  match: matchCodexFile,
  openFileProcesses: OPEN_FILE_PROCESSES,
  roots: codexRoots,
  skipDir: skipCodexDir,
  // The TUI asks its app-server for a thread as it starts (docs/agents/codex.md "Which thread a TUI shows").
  sessionAtStart: true,
}
