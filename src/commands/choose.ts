import {Args} from '@oclif/core'

import {TriageCommand} from '../lib/triage/triage.js'
import {EXIT} from '../lib/base/exit-codes.js'

export default class Choose extends TriageCommand {
  static override args = {
    session: Args.string({description: 'Session id, native id, or a unique prefix (4+ characters).', required: true}),
    option: Args.string({
      description:
        'The number of the option, as the question lists it (1 is the first). With several questions, one answer per question in order; a multiple choice takes several numbers joined by commas (1,3).',
      required: true,
    }),
  }
  static override description = `Picks an option of the question the agent asks (a question dialog with a menu of options, where the agent's files list them), in the agent's own terminal.

The options are read from the agent's transcript (cast sessions and cast web show them). cast finds the session's tmux pane as cast approve does, checks that its screen shows the question dialog with that option on its line, moves the dialog's cursor to it and selects it (the keys the agent's screen patterns declare: ↓/↑, Enter), and checks the screen again until the dialog is gone.

An ask of several questions, or a multiple choice (one dialog of tabs), takes one answer per question, in order: a number, or numbers joined by commas for a multiple choice (cast choose SESSION 2 1,3). cast answers it one key at a time and reads the screen before each key: the dialog must show this ask (its questions and options, the tabs answered so far), the expected tab, and the cursor and ticks where cast put them; before the final submit, its review must list exactly the chosen answers.

Exit 5 when no question is open, when its options are not known, when the screen does not show that option, or when no single pane can be tied to the session: nothing is typed. Exit 5 too when the screen stops matching part-way (the question answered in the terminal meanwhile): cast stops, types nothing more and says which keys went out. Exit 2 when the answers do not fit the questions (one per question; one option for a single choice).`
  static override examples = [
    {
      command: '<%= config.bin %> <%= command.id %> fnkcpnj 2',
      description: 'Pick the second option of its open question; refused in the demo, whose agents are not running (exit 5).',
    },
    {
      command: '<%= config.bin %> <%= command.id %> fnkcpnj 2 1,3',
      description: 'Two questions: option 2 of the first, options 1 and 3 of a multiple choice; refused in the demo (exit 5).',
    },
  ]
  static override strict = false
  static override usage = '<%= command.id %> SESSION OPTION... [--json]'
  static override summary = 'Pick an option of the question the agent asks, in its terminal.'

  async run(): Promise<unknown> {
    const {argv} = await this.parse(Choose)
    const [session = '', ...given] = argv.map(String)
    const answers = given.map((a) => {
      if (!/^\d{1,2}(,\d{1,2}){0,19}$/.test(a) || a.split(',').some((n) => Number(n) < 1))
        this.fail(`"${a}" is not an answer: an option number (1, 2, …), or numbers joined by commas (1,3).`, EXIT.USAGE)
      return a.split(',').map(Number)
    })
    return this.verb('choose', {answers, session})
  }
}
