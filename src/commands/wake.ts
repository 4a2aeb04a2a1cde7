import {TriageCommand} from '../lib/triage/triage.js'
import {verb} from '../core/model/verbs.js'

export default class Wake extends TriageCommand {
  static override description = `Moves sessions to Needs Input now. A snoozed session ends its snooze early
(reason snooze_expired until its next activity); any other session is marked
needs-input, as cast mark needs-input does. A stash or dismiss is lifted. A
killed session is refused (exit 5): cast restore brings its card back.`
  static override examples = ['<%= config.bin %> <%= command.id %> et4lssa', '<%= config.bin %> <%= command.id %> et4lssa bccgmd6 --json']
  static override strict = false
  static override summary = verb('wake').summary
  static override usage = ['<%= command.id %> SESSION...']

  async run(): Promise<unknown> {
    const {argv} = await this.parse(Wake)
    return this.verb('wake', {sessions: this.sessionArgs(argv)})
  }
}
