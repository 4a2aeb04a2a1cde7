import {TriageCommand, type TriageResult} from '../lib/triage/triage.js'

export default class Dismiss extends TriageCommand {
  static override description = `Dismisses sessions: they leave every section and are only counted
("dismissed N" on the tally line), listed with cast sessions --all. Nothing
brings a dismissed session back by itself; cast restore (or cast undo) does,
and a handoff with cast own clears it.

The watch stream prints one "gone" line per dismissed session.`
  static override examples = ['<%= config.bin %> <%= command.id %> 6emibs5', '<%= config.bin %> <%= command.id %> 6emibs5 k3qmfqy --json']
  static override strict = false
  static override summary = 'Dismiss sessions from the inbox.'
  static override usage = ['<%= command.id %> SESSION...']

  async run(): Promise<TriageResult> {
    const {argv} = await this.parse(Dismiss)
    const {planDismiss} = await import('../core/model/triage.js')
    return this.triage('dismiss', this.sessionArgs(argv), (row, now) => planDismiss(row, now), {done: () => 'dismissed'})
  }
}
