import {Args} from '@oclif/core'

import {BaseCommand} from '../../lib/cli/base-command.js'
import type {DecisionJson} from '../../lib/views/views.js'

export default class DecideShow extends BaseCommand {
  static override args = {card: Args.string({description: 'Card id or a unique prefix (4+ characters).', required: true})}
  static override description =
    'Prints one decision card: the question, why it was asked, the options with their effects, the recommendation, and the answer if there is one.'
  static override examples = [
    {
      command:
        'card=$(<%= config.bin %> decide "Ship the fix now?" --option "Ship :: today" --option "Wait :: a day" --json | jq -r .id) && <%= config.bin %> <%= command.id %> "$card"',
      description: 'One card in full: question, options, reasoning, answer.',
    },
    '<%= config.bin %> <%= command.id %> "$(<%= config.bin %> decide "Ship the fix now?" --option "Ship :: today" --option "Wait :: a day" --json | jq -r .id)" --json',
  ]
  static override summary = 'Show a decision card.'

  async run(): Promise<DecisionJson> {
    const {args} = await this.parse(DecideShow)
    const store = await this.openStore()
    const {findCard, renderCard} = await import('../../lib/verbs/decide.js')
    const {decisionJson} = await import('../../lib/views/views.js')
    const card = findCard(store, args.card)
    if (!this.jsonEnabled()) {
      this.log(renderCard(card, this.now()))
    }

    return decisionJson(card)
  }
}
