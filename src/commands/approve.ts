import {Args, Flags} from '@oclif/core'

import {TriageCommand} from '../lib/triage/triage.js'
import {teamFlags} from '../lib/cli/flags.js'
import {verb} from '../core/model/verbs.js'

export default class Approve extends TriageCommand {
  static override args = {
    session: Args.string({description: 'Session id, native id, or a unique prefix (4+ characters).', required: true}),
  }
  static override description = `Answers the session's open permission prompt with "yes", in the agent's own terminal.

cast finds the tmux pane whose processes include the session's verified live process (pid and
start time equal to what the agent's registry, lock or the screen sweep recorded), captures it,
checks that the agent's permission dialog is on screen, sends the keys that agent's dialog takes
(its screen patterns' keys: the approve key, or the always key with --always), and checks the screen again until the dialog is gone.

Exit 5, and nothing is typed, when no permission prompt is open (on screen), when cast does not
know the agent's keys, when no single pane can be tied to the session; exit 5 too when the
dialog is still open afterwards. A question dialog is not a permission prompt: answer it in its
terminal.`
  static override examples = [
    {
      command: '<%= config.bin %> <%= command.id %> fnkcpnj',
      description:
        'Answer its open prompt with yes. In the demo its agent is no longer running, so cast refuses and types nothing (exit 5).',
    },
    {
      command: '<%= config.bin %> <%= command.id %> fnkcpnj --always',
      description: 'Allow it and stop asking for this kind of call (the agent\'s "always allow"); refused in the demo (exit 5).',
    },
  ]
  static override flags = {
    ...teamFlags,
    always: Flags.boolean({summary: 'Choose the dialog\'s "always allow" option.'}),
  }
  static override summary = verb('approve').summary

  async run(): Promise<unknown> {
    const {args, flags} = await this.parse(Approve)
    return this.verb('approve', {always: flags.always, session: args.session}, flags)
  }
}
