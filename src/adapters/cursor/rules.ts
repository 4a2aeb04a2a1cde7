/**
 * What a sync that finds nothing changed needs of this agent (src/core/ingest/adapter.ts
 * AdapterRules): its path rules and process flags, without its parsers. The adapter in index.ts
 * is built over these; src/adapters/light.ts lists them for src/lib/ingest/quick-sync.ts.
 */
import type {AdapterRules} from '../../core/ingest/adapter.js'
import {AGENT_ID} from './identity.js'
import {cursorRoots, matchCursorFile, skipCursorDir} from './paths.js'
export const cursorRules: AdapterRules = {
  agent: AGENT_ID,
  match: matchCursorFile,
  roots: cursorRoots,
  skipDir: skipCursorDir,
}
