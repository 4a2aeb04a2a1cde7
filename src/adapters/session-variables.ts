/**
 * The variables agent CLIs set in the shells they spawn, naming their own session, from each
 * agent's light definition (src/adapters/agents.ts): `cast state`'s fast path (src/lib/state/state-fast.ts) reads them without
 * loading the adapters, and the names each agent's process goes by (its screen patterns, pure data)
 * for the caller's ancestry (src/lib/agents/ancestry.ts). The registry (src/adapters/index.ts) states the same through each agent
 * module; test/adapters/registry.test.ts checks the two lists agree.
 */
import {AGENTS} from './agents.js'

/** In registry order. */
export const SESSION_VARIABLES: readonly {readonly agent: string; readonly name: string}[] = AGENTS.flatMap((a) =>
  a.sessionVariable === null ? [] : [{agent: a.id, name: a.sessionVariable}],
)

/** The names each agent's process goes by, in registry order (the registry's screenPatterns). */
export const AGENT_PROCESSES: readonly {readonly agent: string; readonly processes: readonly string[]}[] = AGENTS.map((a) => ({
  agent: a.id,
  processes: a.screen.processes,
}))

/** Agents whose files the engine checks for a holding process (an adapter's openFileProcesses). */
export const HOLDING_AGENTS: readonly string[] = AGENTS.filter((a) => a.openFileProcesses.length > 0).map((a) => a.id)
