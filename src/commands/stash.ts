import {Flags} from '@oclif/core'

import {TriageCommand} from '../lib/triage/triage.js'
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

--until-ready OTHER parks them on another session: they come back by
themselves, with a notification, the first time OTHER goes from working to
a rest state (its turn ended: done, needs input, idle, dormant) after the
park was made, or when OTHER is killed, dismissed or gone. --note keeps a
line in your words, shown in the listing and by cast explain. A park
nobody revisited (made again) in 14 days is dropped; at most 200 hold at
once. Parking a session on itself, on a killed session, or in a cycle (A
waits on B waits on A) is refused.

Takes several sessions at once; cast undo puts them all back.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> ckq7fgv',
    {command: '<%= config.bin %> <%= command.id %> ckq7fgv yjnhkpc --hide', description: 'Stash two loops until one of them asks.'},
    {
      command: '<%= config.bin %> <%= command.id %> ckq7fgv --until-ready yjnhkpc --note "review once the migration lands"',
      description: 'Park a session until another one finishes its turn.',
    },
  ]
  static override flags = {
    hide: Flags.boolean({summary: 'Stay stashed through trigger wakes and stalls: only an ask brings it back.'}),
    note: Flags.string({helpValue: 'TEXT', summary: 'With --until-ready: a note in your words, kept and shown with the park.'}),
    'until-ready': Flags.string({
      helpValue: 'OTHER',
      summary: 'Park: come back by itself when session OTHER next goes from working to rest, or goes away.',
    }),
  }
  static override strict = false
  static override summary = verb('stash').summary
  static override usage = ['<%= command.id %> SESSION... [--hide] [--until-ready OTHER [--note TEXT]]']

  async run(): Promise<unknown> {
    const {argv, flags} = await this.parse(Stash)
    return this.verb('stash', {
      hide: flags.hide,
      note: flags.note ?? null,
      sessions: this.sessionArgs(argv),
      untilReady: flags['until-ready'] ?? null,
    })
  }
}
