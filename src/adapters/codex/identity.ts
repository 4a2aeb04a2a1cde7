/**
 * Codex CLI's id, stated once: every part of this folder takes it from here. With it, the variable Codex CLI sets in the shells it spawns, naming its own session
 * (read by src/lib/state/state-fast.ts through src/adapters/session-variables.ts without loading the adapters).
 */
export const AGENT_ID = 'codex'
export const SESSION_VARIABLE: string | null = 'CODEX_THREAD_ID'
/** A running `codex` holds its rollout open: the engine claims every rollout a process of these names holds. */
export const OPEN_FILE_PROCESSES: readonly string[] = ['codex']
