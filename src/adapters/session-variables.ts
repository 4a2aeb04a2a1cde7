/**
 * The variables agent CLIs set in the shells they spawn, naming their own session, from each
 * agent's identity.ts alone: `cast state`'s fast path (src/lib/cli/state-fast.ts) reads them without
 * loading the adapters. The registry (src/adapters/index.ts) states the same through each agent
 * module; test/adapters/registry.test.ts checks the two lists agree.
 */
import * as claudeCode from './claude-code/identity.js'
import * as codex from './codex/identity.js'
import * as copilot from './copilot/identity.js'
import * as cursor from './cursor/identity.js'
import * as gemini from './gemini/identity.js'
import * as opencode from './opencode/identity.js'
import * as pi from './pi/identity.js'

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
