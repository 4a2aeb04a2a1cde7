import {TriageCommand, type TriageResult} from '../lib/triage/triage.js'
import {verb} from '../core/model/verbs.js'

export default class Pin extends TriageCommand {
  static override description = `Pins sessions to the top of the inbox (the Pinned section), whatever their
state. A pinned session keeps its state underneath, so the counts stay
honest; an open question still files it under Questions.`
  static override examples = ['<%= config.bin %> <%= command.id %> ckq7fgv', '<%= config.bin %> <%= command.id %> ckq7fgv yjnhkpc']
  static override strict = false
  static override summary = verb('pin').summary
  static override usage = ['<%= command.id %> SESSION...']

  async run(): Promise<TriageResult> {
    const {argv} = await this.parse(Pin)
    const {planPin} = await import('../core/model/triage.js')
    return this.triage('pin', this.sessionArgs(argv), (row) => planPin(row, true), {done: () => 'pinned'})
  }
}
