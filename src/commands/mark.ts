import {Args} from '@oclif/core'

import type {RecordsPatch} from '../core/store/store.js'
import type {Verdict} from '../core/model/types.js'
import {TriageCommand, type TriageResult} from '../lib/triage.js'

const MARKS = ['done', 'dormant', 'needs-input', 'needs_input', 'unread', 'read'] as const
const VERDICT: Partial<Record<(typeof MARKS)[number], Verdict>> = {
  done: 'done',
  dormant: 'dormant',
  'needs-input': 'needs_input',
  needs_input: 'needs_input',
}

export default class Mark extends TriageCommand {
  static override args = {
    as: Args.string({description: 'done, dormant, needs-input, unread or read.', options: [...MARKS], required: true}),
  }
  static override description = `Files sessions by your own verdict, the same as dragging a card into Done,
Dormant or Needs Input. A verdict outranks even an open question (you
already saw it) and holds until the session's next activity (a new message,
a new turn), so it never hides a new ask. Marking a stashed, dismissed or
snoozed session takes it out of that filing; a kill stands.

unread flags a session you want to read again; read clears the flag. Working
is not a verdict: nobody can declare that an agent is producing.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> done grjaguv',
    {command: '<%= config.bin %> <%= command.id %> needs-input ckq7fgv yjnhkpc', description: 'Two sessions back into Needs Input.'},
    '<%= config.bin %> <%= command.id %> unread ckq7fgv',
  ]
  static override strict = false
  static override summary = 'Mark sessions done, dormant, needs-input, unread or read.'
  static override usage = ['<%= command.id %> done|dormant|needs-input|unread|read SESSION...']

  async run(): Promise<TriageResult> {
    const {args, argv} = await this.parse(Mark)
    const as = args.as as (typeof MARKS)[number]
    const verdict = VERDICT[as]
    const {handoffClearsFiling} = await import('../core/model/reconcile.js')
    const sessions = this.sessionArgs(argv.slice(1))
    const verb = `mark ${as === 'needs_input' ? 'needs-input' : as}`
    return this.triage(
      verb,
      sessions,
      (row, now) => {
        if (verdict === undefined) {
          const unread = as === 'unread'
          return row.records.unread === unread ? null : {records: {unread}}
        }

        const records: RecordsPatch = {verdict, verdictAt: now}
        const {filing, snoozedUntil} = row.records
        if (handoffClearsFiling(filing)) Object.assign(records, {filedAt: null, filing: null})
        if (snoozedUntil !== null) records.snoozedUntil = null
        return {records}
      },
      {done: () => `marked ${as === 'needs_input' ? 'needs-input' : as}`},
    )
  }
}
