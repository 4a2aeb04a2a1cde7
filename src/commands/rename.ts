import {Args, Flags} from '@oclif/core'

import {EXIT} from '../lib/base/exit-codes.js'
import {TriageCommand} from '../lib/triage/triage.js'
import {verb} from '../core/model/verbs.js'

export default class Rename extends TriageCommand {
  static override args = {
    session: Args.string({description: 'Session id, native id, or a unique prefix (4+ characters).', required: true}),
  }
  static override description = `Gives a session the title cast shows everywhere (rows, the watch stream, the
feed) in place of the one the agent's files give it. The agent's own files
are not touched. --clear goes back to the agent's title.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> ckq7fgv "Agent badge: tooltip on hover"',
    '<%= config.bin %> <%= command.id %> ckq7fgv --clear',
  ]
  static override flags = {
    clear: Flags.boolean({summary: "Go back to the agent's own title."}),
  }
  static override strict = false
  static override summary = verb('rename').summary
  static override usage = ['<%= command.id %> SESSION TITLE', '<%= command.id %> SESSION --clear']

  async run(): Promise<unknown> {
    const {args, argv, flags} = await this.parse(Rename)
    const title = argv.slice(1).map(String).join(' ').replace(/\s+/g, ' ').trim()
    if (flags.clear && title !== '') this.fail('Give a TITLE or --clear, not both.', EXIT.USAGE)
    return this.verb('rename', {session: args.session, title: flags.clear ? null : title})
  }
}
