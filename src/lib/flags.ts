import {Flags} from '@oclif/core'

import type {Agent, WorkState} from '../core/model/types.js'
import {AGENT_HELP, parseAgent, parseState, STATE_HELP} from './flag-values.js'

// The value parsers are oclif-free (bin/run.js's fast path for `cast sessions` uses them too).
export {AGENT_HELP, normaliseAgent, normaliseState, parseAgent, parseState, splitList, STATE_HELP} from './flag-values.js'

export const agentFlag = Flags.custom<Agent>({helpValue: AGENT_HELP, parse: async (input) => parseAgent(input)})
export const stateFlag = Flags.custom<WorkState>({delimiter: ',', helpValue: STATE_HELP, multiple: true, parse: async (input) => parseState(input)})

/** The filters `cast sessions`, `cast sessions -w` and `cast feed` share. */
export const filterFlags = {
  agent: agentFlag({summary: 'Only sessions of this agent (any spelling: claude-code, claude_code, claude).'}),
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
  timeout: Flags.string({helpValue: 'D', summary: 'On a session that runs on another machine: how long to wait for its result (default 30s; then exit 124).'}),
}
