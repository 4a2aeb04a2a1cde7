import {Args} from '@oclif/core'

import {BaseCommand} from '../../lib/base-command.js'
import type {DecisionJson} from '../../lib/views.js'

export default class DecideShow extends BaseCommand {
  static override args = {card: Args.string({description: 'Card id or a unique prefix (4+ characters).', required: true})}
  static override description = 'Prints one decision card: the question, why it was asked, the options with their effects, the recommendation, and the answer if there is one.'
  static override examples = ['<%= config.bin %> <%= command.id %> d7k2xq4', '<%= config.bin %> <%= command.id %> d7k2 --json']
  static override summary = 'Show a decision card.'

  async run(): Promise<DecisionJson> {
    const {args} = await this.parse(DecideShow)
    const store = await this.openStore()
    const {findCard, renderCard} = await import('../../lib/decide.js')
    const {decisionJson} = await import('../../lib/views.js')
    const card = findCard(store, args.card)
    if (!this.jsonEnabled()) {
      this.log(renderCard(card, this.now()))
    }

    return decisionJson(card)
  }
}
