import {Args} from '@oclif/core'

import {BaseCommand} from '../lib/cli/base-command.js'
import type {ChooseJson} from '../lib/agents/dialog-choose.js'
import {EXIT} from '../lib/cli/exit-codes.js'

export default class Choose extends BaseCommand {
  static override args = {
    session: Args.string({description: 'Session id, native id, or a unique prefix (4+ characters).', required: true}),
    option: Args.string({description: 'The number of the option, as the question lists it (1 is the first).', required: true}),
  }
  static override description = `Picks an option of the question the agent asks (a question dialog with a menu of options, where the agent's files list them), in the agent's own terminal.

The options are read from the agent's transcript (cast sessions and cast web show them). cast finds the session's tmux pane as cast approve does, checks that its screen shows the question dialog with that option on its line, moves the dialog's cursor to it and selects it (the keys the agent's screen patterns declare: ↓/↑, Enter), and checks the screen again until the dialog is gone.

Exit 5, and nothing is typed, when no question is open, when its options are not known (several questions, or a multiple choice: answer those in the terminal), when the screen does not show that option, or when no single pane can be tied to the session.`
  static override examples = [
    {
      command: '<%= config.bin %> <%= command.id %> fnkcpnj 2',
      description: 'Pick the second option of its open question; refused in the demo, whose agents are not running (exit 5).',
    },
  ]
  static override summary = 'Pick an option of the question the agent asks, in its terminal.'

  async run(): Promise<ChooseJson> {
    const {args} = await this.parse(Choose)
    const n = Number(args.option)
    if (!/^\d{1,2}$/.test(args.option) || n < 1) this.fail(`"${args.option}" is not an option number (1, 2, …).`, EXIT.USAGE)
    const store = await this.openStore()
    const {chooseOption} = await import('../lib/agents/dialog-choose.js')
    const r = await chooseOption(store, this.env, this.clock(), this.me, args.session, n)
    if (!this.jsonEnabled())
      this.log(
        `Chose ${r.choice}. ${r.label} for "${r.question}" in ${r.short_id} (tmux ${r.pane}; keys ${r.keys.join(' ')}): the dialog closed after ${r.closed_after_ms} ms.`,
      )
    return r
  }
}
