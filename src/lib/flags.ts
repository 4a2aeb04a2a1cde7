import {Flags} from '@oclif/core'

import {AGENTS, WORK_STATES} from '../core/model/types.js'

/** The filters `cast sessions`, `cast sessions -w` and `cast feed` share. */
export const filterFlags = {
  agent: Flags.option({options: AGENTS, summary: 'Only sessions of this agent.'})(),
  all: Flags.boolean({summary: 'Ignore the recency window and list dismissed and hidden rows too.'}),
  cwd: Flags.string({summary: 'Only sessions whose working directory is DIR or below it.', helpValue: 'DIR'}),
  label: Flags.string({summary: 'Only sessions carrying your label L.', helpValue: 'L'}),
  quiet: Flags.boolean({summary: 'Only working sessions that have been silent for 10 minutes or more.'}),
  state: Flags.option({multiple: true, options: WORK_STATES, summary: 'Only sessions in this work state (repeatable).'})(),
  team: Flags.boolean({summary: "Every team member's sessions, not only your inbox."}),
}

export const sessionFlag = Flags.string({
  char: 's',
  env: 'CAST_SESSION',
  summary: 'The session to act for (default: CAST_SESSION, the agent\'s own variables, the process tree).',
})
