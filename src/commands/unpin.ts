import {TriageCommand, type TriageResult} from '../lib/triage.js'

export default class Unpin extends TriageCommand {
  static override description = 'Unpins sessions: each returns to the section its state puts it in.'
  static override examples = ['<%= config.bin %> <%= command.id %> ziabnwy']
  static override strict = false
  static override summary = 'Unpin sessions.'
  static override usage = ['<%= command.id %> SESSION...']

  async run(): Promise<TriageResult> {
    const {argv} = await this.parse(Unpin)
    return this.triage('unpin', this.sessionArgs(argv), (row) => (row.records.pinned ? {records: {pinned: false}} : null), {
      done: () => 'unpinned',
    })
  }
}
