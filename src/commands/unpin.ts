import {TriageCommand} from '../lib/triage/triage.js'
import {verb} from '../core/model/verbs.js'

export default class Unpin extends TriageCommand {
  static override description = 'Unpins sessions: each returns to the section its state puts it in.'
  static override examples = ['<%= config.bin %> <%= command.id %> ziabnwy']
  static override strict = false
  static override summary = verb('unpin').summary
  static override usage = ['<%= command.id %> SESSION...']

  async run(): Promise<unknown> {
    const {argv} = await this.parse(Unpin)
    return this.verb('unpin', {sessions: this.sessionArgs(argv)})
  }
}
