import {Flags} from '@oclif/core'

import {TriageCommand, type TriageResult} from '../lib/triage.js'
import {verb} from '../core/model/verbs.js'

export default class Stash extends TriageCommand {
  static override description = `Takes sessions out of the inbox while their agents keep running. A stash
comes back by itself when a trigger fires into the session, when the agent
declares blocked, or when it stalls (a permission prompt, an open question,
a dead process).

--hide makes a stash that stays out through trigger wakes and stalls: only
an ask (a question, a permission prompt, a decision card, a child's ask)
brings it back. Made for a recurring loop you have reviewed and want quiet.
Hidden stashes are counted, and listed with --all.

Takes several sessions at once; cast undo puts them all back.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> ckq7fgv',
    {command: '<%= config.bin %> <%= command.id %> ckq7fgv yjnhkpc --hide', description: 'Stash two loops until one of them asks.'},
  ]
  static override flags = {
    hide: Flags.boolean({summary: 'Stay stashed through trigger wakes and stalls: only an ask brings it back.'}),
  }
  static override strict = false
  static override summary = verb('stash').summary
  static override usage = ['<%= command.id %> SESSION... [--hide]']

  async run(): Promise<TriageResult> {
    const {argv, flags} = await this.parse(Stash)
    const {planStash} = await import('../core/model/triage.js')
    return this.triage(flags.hide ? 'stash --hide' : 'stash', this.sessionArgs(argv), (row, now) => planStash(row, now, flags.hide), {
      done: () => (flags.hide ? 'stashed (hidden)' : 'stashed'),
    })
  }
}
