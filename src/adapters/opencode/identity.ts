/**
 * OpenCode's id, stated once: every part of this folder takes it from here. With it, OpenCode sets no variable naming its session in the shells it spawns
 * (read by src/lib/state/state-fast.ts through src/adapters/session-variables.ts without loading the adapters).
 */
export const AGENT_ID = 'opencode'
export const SESSION_VARIABLE: string | null = null
