import {TriageCommand} from '../lib/triage/triage.js'
import {verb} from '../core/model/verbs.js'

export default class Pin extends TriageCommand {
  static override description = `Pins sessions to the top of the inbox (the Pinned section), whatever their
state. A pinned session keeps its state underneath, so the counts stay
honest; an open question still files it under Questions.`
  static override examples = ['<%= config.bin %> <%= command.id %> ckq7fgv', '<%= config.bin %> <%= command.id %> ckq7fgv yjnhkpc']
  static override strict = false
  static override summary = verb('pin').summary
  static override usage = ['<%= command.id %> SESSION...']

  async run(): Promise<unknown> {
    const {argv} = await this.parse(Pin)
    return this.verb('pin', {sessions: this.sessionArgs(argv)})
  }
}
