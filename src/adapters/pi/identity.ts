/**
 * pi's id, stated once: every part of this folder takes it from here. With it, the variable pi sets in the shells it spawns, naming its own session
 * (read by src/lib/state/state-fast.ts through src/adapters/session-variables.ts without loading the adapters).
 */
export const AGENT_ID = 'pi'
export const SESSION_VARIABLE: string | null = 'PI_SESSION_ID'
