import {Args, Flags} from '@oclif/core'

import {EXIT} from '../lib/base/exit-codes.js'
import {TriageCommand, type TriageResult} from '../lib/triage/triage.js'

export default class Disown extends TriageCommand {
  static override args = {
    session: Args.string({description: 'Session id, native id, or a unique prefix (4+ characters).', required: true}),
    who: Args.string({description: 'The owner to remove (default: you).'}),
  }
  static override description = `Removes an owner from a session (you, by default), or every owner with
--all. A session with no owner left goes back to whoever runs it, within the
inbox's recency window.`
  static override examples = [
    {command: '<%= config.bin %> <%= command.id %> kdsmarj', description: 'Drop yourself from its owners.'},
    '<%= config.bin %> <%= command.id %> kdsmarj ana@example.com',
    '<%= config.bin %> <%= command.id %> kdsmarj --all',
  ]
  static override flags = {
    all: Flags.boolean({summary: 'Remove every owner.'}),
  }
  static override summary = 'Remove an owner from a session (or all of them).'

  async run(): Promise<TriageResult> {
    const {args, flags} = await this.parse(Disown)
    if (flags.all && args.who) this.fail('Give WHO or --all, not both.', EXIT.USAGE)
    const {planDisown} = await import('../core/model/triage.js')
    const {loadConfig, resolveIdentity} = await import('../lib/home/config.js')
    const config = await loadConfig(this.env)
    const typed = (args.who ?? this.me).trim()
    // A team member may be named by name; anyone else (a former member) is removed as typed.
    let who = typed
    try {
      who = resolveIdentity(config, typed)
    } catch {
      who = typed
    }

    return this.triage(flags.all ? 'disown --all' : 'disown', [args.session], (row) => planDisown(row, flags.all ? {all: true} : who), {
      done: (row) => (row.records.owners.length === 0 ? 'no owners' : `owned by ${row.records.owners.join(', ')}`),
    })
  }
}
