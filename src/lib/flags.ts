import {Flags} from '@oclif/core'

import {registry} from '../adapters/index.js'
import {type Agent, WORK_STATES, type WorkState} from '../core/model/types.js'
import {durationFlag} from './time-flags.js'

/**
 * Agent names in any spelling people type (issue 13 point 7): the id, the CLI's binary and each
 * agent's aliases, with dashes, underscores, spaces and case alike (the registry's byAlias).
 */
export function normaliseAgent(input: string): Agent | null {
  return registry().byAlias(input)?.id ?? null
}

/** Three spellings of the first agent in the registry (an alias, the id, the binary), for help texts. */
function spellings(): string {
  const m = registry().modules[0]
  if (!m) return ''
  const names = [m.names.aliases[0], m.id, m.reading.cli?.bin].filter((n): n is string => Boolean(n))
  return [...new Set(names)].join(', ')
}

/** One spelling of an agent other than its id, for examples (the first agent's first alias). */
export const AGENT_SPELLING = registry().modules[0]?.names.aliases[0] ?? registry().ids[0] ?? 'AGENT'

/** States in both spellings: `needs-input` and `needs_input` (and `needs input`). */
export function normaliseState(input: string): WorkState | null {
  const key = input.trim().toLowerCase().replaceAll(/[\s-]+/g, '_')
  return (WORK_STATES as readonly string[]).includes(key) ? (key as WorkState) : null
}

export const AGENT_HELP = registry().ids.join('|')
export const STATE_HELP = WORK_STATES.join('|')

export function parseAgent(input: string): Agent {
  const a = normaliseAgent(input)
  if (a === null) throw new Error(`"${input}" is not an agent; one of ${registry().ids.join(', ')} (any spelling: ${spellings()}).`)
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

export const agentFlag = Flags.custom<Agent>({helpValue: AGENT_HELP, parse: (input) => Promise.resolve(parseAgent(input))})
export const stateFlag = Flags.custom<WorkState>({delimiter: ',', helpValue: STATE_HELP, multiple: true, parse: (input) => Promise.resolve(parseState(input))})

/** The filters `cast sessions`, `cast sessions -w` and `cast feed` share. */
export const filterFlags = {
  agent: agentFlag({summary: `Only sessions of this agent (any spelling: ${spellings()}).`}),
  all: Flags.boolean({summary: 'Ignore the recency window and list dismissed and hidden rows too.'}),
  cwd: Flags.string({summary: 'Only sessions whose working directory is DIR or below it.', helpValue: 'DIR'}),
  label: Flags.string({summary: 'Only sessions carrying your label L.', helpValue: 'L'}),
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
  timeout: durationFlag({helpValue: 'D', summary: 'On a session that runs on another machine: how long to wait for its result (default 30s; then exit 124).'}),
}
