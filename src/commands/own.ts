import {Args} from '@oclif/core'

import {teamFlags} from '../lib/cli/flags.js'
import {TriageCommand} from '../lib/triage/triage.js'

export default class Own extends TriageCommand {
  static override args = {
    session: Args.string({description: 'Session id, native id, or a unique prefix (4+ characters).', required: true}),
    who: Args.string({description: 'The new owner (default: you). With a team in the config, a member id or name.'}),
  }
  static override description = `Ownership decides whose inbox it is in. A session you run but own no part
of leaves your inbox and stops notifying you, whatever state it is in; name
its id to read it anyway. An owned session stays in the owner's inbox with
no recency limit, and a handoff clears a dismiss, stash or snooze so it
lands where they can see it. A kill is left alone.

WHO is checked against the team list when the config names one (key "team").`
  static override examples = [
    {command: '<%= config.bin %> <%= command.id %> grjaguv ana@example.com', description: 'Hand off to a teammate.'},
    {command: '<%= config.bin %> <%= command.id %> grjaguv', description: 'Claim it yourself.'},
    {command: '<%= config.bin %> disown kdsmarj --all', description: 'Clear every owner.'},
  ]
  static override flags = {...teamFlags}
  static override summary = 'Add an owner to a session (hand it off, or claim it).'

  async run(): Promise<unknown> {
    const {args, flags} = await this.parse(Own)
    return this.verb('own', {session: args.session, who: args.who ?? null}, flags)
  }
}
