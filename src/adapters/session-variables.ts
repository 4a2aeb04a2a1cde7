/**
 * The variables agent CLIs set in the shells they spawn, naming their own session, from each
 * agent's identity.ts alone: `cast state`'s fast path (src/lib/cli/state-fast.ts) reads them without
 * loading the adapters, and the names each agent's process goes by (its screen patterns, pure data)
 * for the caller's ancestry (src/lib/agents/ancestry.ts). The registry (src/adapters/index.ts) states the same through each agent
 * module; test/adapters/registry.test.ts checks the two lists agree.
 */
import * as claudeCode from './claude-code/identity.js'
import * as codex from './codex/identity.js'
import * as copilot from './copilot/identity.js'
import * as cursor from './cursor/identity.js'
import * as gemini from './gemini/identity.js'
import * as opencode from './opencode/identity.js'
import * as pi from './pi/identity.js'
import {claudeScreenPatterns} from './claude-code/screen-patterns.js'
import {codexScreenPatterns} from './codex/screen-patterns.js'
import {copilotScreenPatterns} from './copilot/screen-patterns.js'
import {cursorScreenPatterns} from './cursor/screen-patterns.js'
import {geminiScreenPatterns} from './gemini/screen-patterns.js'
import {opencodeScreenPatterns} from './opencode/screen-patterns.js'
import {piScreenPatterns} from './pi/screen-patterns.js'

/** In registry order. */
export const SESSION_VARIABLES: readonly {readonly agent: string; readonly name: string}[] = [
  claudeCode,
  codex,
  opencode,
  pi,
  gemini,
  copilot,
  cursor,
].flatMap((a) => (a.SESSION_VARIABLE === null ? [] : [{agent: a.AGENT_ID, name: a.SESSION_VARIABLE}]))

/** The names each agent's process goes by, in registry order (the registry's screenPatterns). */
export const AGENT_PROCESSES: readonly {readonly agent: string; readonly processes: readonly string[]}[] = [
  claudeScreenPatterns,
  codexScreenPatterns,
  opencodeScreenPatterns,
  piScreenPatterns,
  geminiScreenPatterns,
  copilotScreenPatterns,
  cursorScreenPatterns,
].map((p) => ({agent: p.agent, processes: p.processes}))

/** Agents whose files the engine checks for a holding process (an adapter's openFileProcesses). */
export const HOLDING_AGENTS: readonly string[] = [{agent: codex.AGENT_ID, names: codex.OPEN_FILE_PROCESSES}].flatMap((a) =>
  a.names.length > 0 ? [a.agent] : [],
)
