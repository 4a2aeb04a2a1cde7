import {TriageCommand, type TriageResult} from '../lib/triage/triage.js'
import {verb} from '../core/model/verbs.js'

export default class Unpin extends TriageCommand {
  static override description = 'Unpins sessions: each returns to the section its state puts it in.'
  static override examples = ['<%= config.bin %> <%= command.id %> ziabnwy']
  static override strict = false
  static override summary = verb('unpin').summary
  static override usage = ['<%= command.id %> SESSION...']

  async run(): Promise<TriageResult> {
    const {argv} = await this.parse(Unpin)
    const {planPin} = await import('../core/model/triage.js')
    return this.triage('unpin', this.sessionArgs(argv), (row) => planPin(row, false), {done: () => 'unpinned'})
  }
}
