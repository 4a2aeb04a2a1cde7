import {Flags} from '@oclif/core'

import {EXIT} from '../lib/base/exit-codes.js'
import {TriageCommand} from '../lib/triage/triage.js'
import {verb} from '../core/model/verbs.js'

export default class Label extends TriageCommand {
  static override description = `Files sessions under one of your personal labels. A session carries at most
one label per person: labelling it again replaces yours, and teammates never
see it (they have their own). Filter by it with cast sessions --label NAME,
cast sessions -w --label NAME and cast feed --label NAME.

The first argument is the label, the rest are sessions; with --clear every
argument is a session.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> fleet kdsmarj grjaguv',
    '<%= config.bin %> <%= command.id %> --clear kdsmarj',
  ]
  static override flags = {
    clear: Flags.boolean({summary: 'Remove your label from the sessions.'}),
  }
  static override strict = false
  static override summary = verb('label').summary
  static override usage = ['<%= command.id %> NAME SESSION...', '<%= command.id %> --clear SESSION...']

  async run(): Promise<unknown> {
    const {argv, flags} = await this.parse(Label)
    const args = argv.map(String)
    const label = flags.clear ? null : (args.shift() ?? '')
    if (label !== null && label.trim() === '') this.fail('Name the label, then the sessions: cast label NAME SESSION...', EXIT.USAGE)
    return this.verb('label', {label, sessions: this.sessionArgs(args)})
  }
}
