import {Args} from '@oclif/core'

import type {RemoteVerbJson} from '../lib/cli/base-command.js'
import {teamFlags} from '../lib/cli/flags.js'
import {TriageCommand, type TriageResult} from '../lib/triage/triage.js'

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

  async run(): Promise<TriageResult | RemoteVerbJson> {
    const {args, flags} = await this.parse(Own)
    const {loadConfig, resolveIdentity} = await import('../lib/home/config.js')
    const {isOwnedBy} = await import('../core/model/ownership.js')
    const {planOwn} = await import('../core/model/triage.js')
    const config = await loadConfig(this.env)
    const who = resolveIdentity(config, args.who ?? this.me)
    const remote = await this.remoteVerb('own', args.session, {who}, flags)
    if (remote) return remote
    return this.triage('own', [args.session], (row) => planOwn(row, who), {
      done: (row) => (isOwnedBy(row.records.owners, who) ? `owned by ${row.records.owners.join(', ')}` : 'unchanged'),
    })
  }
}
