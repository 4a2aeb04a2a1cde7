import {Flags} from '@oclif/core'

import {type Agent, AGENTS, WORK_STATES, type WorkState} from '../core/model/types.js'
import {listFlag, listOf, nonEmpty} from './lists.js'

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
export const splitList = listOf

export const agentFlag = listFlag<Agent>({helpValue: 'AGENT', parse: parseAgent})
export const stateFlag = listFlag<WorkState>({helpValue: STATE_HELP, parse: parseState})
export const labelFlag = listFlag<string>({helpValue: 'L', parse: nonEmpty})

/** The filters `cast sessions`, `cast sessions -w` and `cast feed` share. */
export const filterFlags = {
  agent: agentFlag({summary: `Only sessions of these agents (repeat it or use commas): ${AGENTS.join(', ')}, in any spelling (claude-code, claude_code, claude).`}),
  all: Flags.boolean({summary: 'Ignore the recency window and list dismissed and hidden rows too.'}),
  cwd: Flags.string({summary: 'Only sessions whose working directory is DIR or below it.', helpValue: 'DIR'}),
  label: labelFlag({summary: 'Only sessions carrying one of your labels L (repeat it or use commas).'}),
  quiet: Flags.boolean({summary: 'Only working sessions that have been silent for 10 minutes or more.'}),
  state: stateFlag({summary: 'Only sessions in these work states (repeat it or use commas; needs-input or needs_input).'}),
  team: Flags.boolean({summary: "Every team member's sessions, not only your inbox."}),
}

export const sessionFlag = Flags.string({
  char: 's',
  env: 'CAST_SESSION',
  summary: 'The session to act for (default: CAST_SESSION, the agent\'s own variables, the process tree).',
})

/** For a session on another machine of the team (issue 17): wait for its machine, or only queue. */
export const teamFlags = {
  'no-wait': Flags.boolean({summary: 'On a session that runs on another machine of the team: queue the action and return at once.'}),
  timeout: Flags.string({helpValue: 'D', summary: 'On a session that runs on another machine: how long to wait for its result (default 30s; then exit 124).'}),
}
