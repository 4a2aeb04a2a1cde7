/**
 * Flag values in any spelling (agents, states, comma lists), without oclif: src/lib/flags.ts
 * builds its oclif flags on these, and bin/run.js's fast path for `cast sessions`
 * (src/lib/sessions-fast.ts) parses with the same functions.
 */
import {type Agent, AGENTS, WORK_STATES, type WorkState} from '../core/model/types.js'

/**
 * Agent names in any spelling people type (issue 13 point 7): `claude-code`, `claude_code`,
 * `Claude`, `gemini-cli`, `copilot-cli`, `cursor-agent` all name the same agent.
 */
const AGENT_ALIASES: Readonly<Record<string, Agent>> = {
  claude: 'claude_code',
  claudecode: 'claude_code',
  copilot_cli: 'copilot',
  cursor_agent: 'cursor',
  gemini_cli: 'gemini',
  github_copilot: 'copilot',
  open_code: 'opencode',
  pi_coding_agent: 'pi',
}

export function normaliseAgent(input: string): Agent | null {
  const key = input.trim().toLowerCase().replaceAll(/[\s-]+/g, '_')
  if ((AGENTS as readonly string[]).includes(key)) return key as Agent
  return AGENT_ALIASES[key] ?? null
}

/** States in both spellings: `needs-input` and `needs_input` (and `needs input`). */
export function normaliseState(input: string): WorkState | null {
  const key = input.trim().toLowerCase().replaceAll(/[\s-]+/g, '_')
  return (WORK_STATES as readonly string[]).includes(key) ? (key as WorkState) : null
}

export const AGENT_HELP = AGENTS.join('|')
export const STATE_HELP = WORK_STATES.join('|')

export function parseAgent(input: string): Agent {
  const a = normaliseAgent(input)
  if (a === null) throw new Error(`"${input}" is not an agent; one of ${AGENTS.join(', ')} (any spelling: claude-code, claude_code, claude).`)
  return a
}

export function parseState(input: string): WorkState {
  const s = normaliseState(input)
  if (s === null) throw new Error(`"${input}" is not a state; one of ${WORK_STATES.join(', ')} (needs-input and needs_input alike).`)
  return s
}

/** A comma list and repeats alike: `--state done,idle` = `--state done --state idle`. */
export function splitList(values: readonly string[] | undefined): string[] {
  return (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '')
}
