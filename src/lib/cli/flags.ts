import {Flags} from '@oclif/core'

import {registry} from '../../adapters/index.js'
import type {Agent, WorkState} from '../../core/model/types.js'
import {parseAgent, parseState, spellings, STATE_HELP} from './flag-values.js'
import {listFlag, nonEmpty} from './lists.js'
import {durationFlag} from './time-flags.js'

// The value parsers are oclif-free (bin/run.js's fast path for `cast sessions` uses them too).
export {
  AGENT_HELP,
  AGENT_SPELLING,
  listOf,
  normaliseAgent,
  normaliseState,
  parseAgent,
  parseState,
  splitList,
  STATE_HELP,
} from './flag-values.js'

export const agentFlag = listFlag<Agent>({helpValue: 'AGENT', parse: parseAgent})
export const stateFlag = listFlag<WorkState>({helpValue: STATE_HELP, parse: parseState})
export const labelFlag = listFlag<string>({helpValue: 'L', parse: nonEmpty})

/** The filters `cast sessions`, `cast sessions -w` and `cast feed` share. */
export const filterFlags = {
  agent: agentFlag({
    summary: `Only sessions of these agents (repeat it or use commas): ${registry().ids.join(', ')}, in any spelling (${spellings()}).`,
  }),
  all: Flags.boolean({summary: 'Ignore the recency window and list dismissed and hidden rows too.'}),
  cwd: Flags.string({summary: 'Only sessions whose working directory is DIR or below it.', helpValue: 'DIR'}),
  label: labelFlag({summary: 'Only sessions carrying one of your labels L (repeat it or use commas).'}),
  // A filter, so not `--quiet` (in gh and npm that means less output); `--quiet` stays a hidden alias.
  'only-quiet': Flags.boolean({aliases: ['quiet'], summary: 'Only working sessions that have been silent for 10 minutes or more (quiet).'}),
  state: stateFlag({summary: 'Only sessions in these work states (repeat it or use commas; needs-input or needs_input).'}),
  team: Flags.boolean({summary: "Every team member's sessions, not only your inbox."}),
}

export const sessionFlag = Flags.string({
  char: 's',
  env: 'CAST_SESSION',
  summary: "The session to act for (default: CAST_SESSION, the agent's own variables, the process tree).",
})

/** For a session on another machine of the team: wait for its machine, or only queue. */
export const teamFlags = {
  'no-wait': Flags.boolean({summary: 'On a session that runs on another machine of the team: queue the action and return at once.'}),
  timeout: durationFlag({
    helpValue: 'D',
    summary: 'On a session that runs on another machine: how long to wait for its result (default 30s; then exit 124).',
  }),
}
