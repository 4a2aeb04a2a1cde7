import {Args, Flags} from '@oclif/core'

import {TriageCommand} from '../lib/triage/triage.js'
import {teamFlags} from '../lib/cli/flags.js'
import {verb} from '../core/model/verbs.js'

export default class Deny extends TriageCommand {
  static override args = {
    session: Args.string({description: 'Session id, native id, or a unique prefix (4+ characters).', required: true}),
  }
  static override description = `Answers the session's open permission prompt with "no", in the agent's own terminal.

Like cast approve: the pane is the one whose processes include the session's verified live
process, the dialog must be on its screen before anything is typed, and the screen is checked
afterwards until the dialog is gone. --note types a reason into the agent's "tell it what to do
instead" field where the agent has one (exit 5, nothing typed, where cast knows none).

Exit 5, and nothing is typed, when no permission prompt is open, when cast does not know the
agent's keys, or when no single pane can be tied to the session; exit 5 too when the dialog is
still open afterwards.`
  static override examples = [
    {
      command: '<%= config.bin %> <%= command.id %> fnkcpnj',
      description: 'Answer its open prompt with no; refused in the demo, whose agents are not running (exit 5).',
    },
    {
      command: '<%= config.bin %> <%= command.id %> fnkcpnj --note "Use the staging database"',
      description: 'Deny and tell the agent why; refused in the demo (exit 5).',
    },
  ]
  static override flags = {
    ...teamFlags,
    note: Flags.string({helpValue: 'TEXT', summary: 'What the agent should do instead (typed into its deny field).'}),
  }
  static override summary = verb('deny').summary

  async run(): Promise<unknown> {
    const {args, flags} = await this.parse(Deny)
    return this.verb('deny', {note: flags.note ?? null, session: args.session}, flags)
  }
}
