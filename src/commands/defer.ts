import {TriageCommand} from '../lib/triage/triage.js'
import {verb} from '../core/model/verbs.js'

export default class Defer extends TriageCommand {
  static override description = `Not now: the session drops to the bottom of its section and comes back up on
its next activity (a new message, a new turn). The lightest triage verb:
nothing is hidden.`
  static override examples = ['<%= config.bin %> <%= command.id %> ziabnwy']
  static override strict = false
  static override summary = verb('defer').summary
  static override usage = ['<%= command.id %> SESSION...']

  async run(): Promise<unknown> {
    const {argv} = await this.parse(Defer)
    return this.verb('defer', {sessions: this.sessionArgs(argv)})
  }
}
