import {Args, Flags} from '@oclif/core'

import {TriageCommand} from '../../lib/triage/triage.js'
import {teamFlags} from '../../lib/cli/flags.js'

export type {AnswerJson} from '../../lib/verbs/answers.js'

export default class DecideAnswer extends TriageCommand {
  static override args = {
    card: Args.string({description: 'Card id or a unique prefix (4+ characters).', required: true}),
    choice: Args.string({description: 'The option: its number, or its label.', required: true}),
  }
  static override description = `Answers a decision card: the card leaves Questions, and an agent blocked in "cast decide --wait" gets the chosen label at once. When nobody is waiting on the card, the answer is also delivered to the session as its next turn (as "cast send" would: typed into its tmux pane, or resumed headless).

Answering a card the agent auto-decided while you were away confirms it (same option: nothing is sent) or changes it (another option: the change is sent to the session).`
  static override examples = [
    {
      command:
        'card=$(<%= config.bin %> decide "Keep the raw-header call sites?" --option "Keep :: no churn" --option "Migrate :: one style" --json | jq -r .id) && <%= config.bin %> <%= command.id %> "$card" 2',
      description: 'An agent asks (the id is in its JSON), you pick option 2.',
    },
    {
      command:
        'card=$(<%= config.bin %> decide "Which table layout?" --option "Wide table :: fast reads" --option "EAV :: flexible" --json | jq -r .id) && <%= config.bin %> <%= command.id %> "$card" "Wide table" --note "and add an index on ts"',
      description: 'Pick by label, with a note for the agent.',
    },
  ]
  static override flags = {
    ...teamFlags,
    note: Flags.string({helpValue: 'TEXT', summary: 'A note for the agent along with the choice.'}),
  }
  static override summary = 'Answer a decision card.'

  async run(): Promise<unknown> {
    const {args, flags} = await this.parse(DecideAnswer)
    return this.verb('answer', {card: args.card, choice: args.choice, note: flags.note ?? null}, flags)
  }
}
