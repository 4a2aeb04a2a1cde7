/**
 * What a sync that finds nothing changed needs of this agent (src/core/ingest/adapter.ts
 * AdapterRules): its path rules and process flags, without its parsers. The adapter in index.ts
 * is built over these; src/adapters/light.ts lists them for src/lib/ingest/quick-sync.ts.
 */
import type {AdapterRules} from '../../core/ingest/adapter.js'
import {AGENT_ID} from './identity.js'
import {matchPiFile, piRoots, skipPiDir} from './paths.js'
import {piUnwrittenRun} from './unwritten.js'
export const piRules: AdapterRules = {
  agent: AGENT_ID,
  match: matchPiFile,
  // No registry outlives a crash: the engine's process scan finds the process (process-scan.ts).
  processScan: true,
  roots: piRoots,
  skipDir: skipPiDir,
  // No file before the first reply: a headless run is listed from its process until then.
  unwrittenRun: piUnwrittenRun,
}
