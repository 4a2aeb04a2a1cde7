import {TriageCommand} from '../lib/triage/triage.js'
import {verb} from '../core/model/verbs.js'

export default class Restore extends TriageCommand {
  static override description = `Brings back anything set aside: a stash (hidden or not), a dismiss, a
snooze, a defer and a kill. The session returns to the section its state
puts it in. Restoring a killed session brings its card back, not its
process: the agent stays stopped until you send to it.`
  static override examples = ['<%= config.bin %> <%= command.id %> 46uu5o4', '<%= config.bin %> <%= command.id %> 46uu5o4 lh5rllu']
  static override strict = false
  static override summary = verb('restore').summary
  static override usage = ['<%= command.id %> SESSION...']

  async run(): Promise<unknown> {
    const {argv} = await this.parse(Restore)
    return this.verb('restore', {sessions: this.sessionArgs(argv)})
  }
}
