import {Args} from '@oclif/core'

import type {MarkAs} from '../core/model/triage.js'
import {TriageCommand} from '../lib/triage/triage.js'

const MARKS = ['done', 'dormant', 'needs-input', 'needs_input', 'unread', 'read'] as const
const MARK_AS: Record<(typeof MARKS)[number], MarkAs> = {
  done: 'done',
  dormant: 'dormant',
  'needs-input': 'needs_input',
  needs_input: 'needs_input',
  read: 'read',
  unread: 'unread',
}

export default class Mark extends TriageCommand {
  static override args = {
    verdict: Args.string({description: 'done, dormant, needs-input, unread or read.', options: [...MARKS], required: true}),
    // Several sessions (strict = false): oclif shows the last argument with "...".
    session: Args.string({description: 'Session ids, native ids or unique prefixes (several allowed).', required: true}),
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

  async run(): Promise<unknown> {
    const {args, argv} = await this.parse(Mark)
    const as = args.verdict as (typeof MARKS)[number]
    return this.verb('mark', {as: MARK_AS[as], sessions: this.sessionArgs(argv.slice(1))})
  }
}
