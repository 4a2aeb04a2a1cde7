import {Flags} from '@oclif/core'

import {EXIT} from '../lib/base/exit-codes.js'
import {TriageCommand, type TriageResult} from '../lib/triage/triage.js'
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

  async run(): Promise<TriageResult> {
    const {argv, flags} = await this.parse(Stash)
    if (flags['until-ready'] !== undefined) return this.park(this.sessionArgs(argv), flags['until-ready'], flags.note ?? null, flags.hide)
    if (flags.note !== undefined) this.fail('--note goes with --until-ready (a park keeps its note).', EXIT.USAGE)
    const {planStash} = await import('../core/model/triage.js')
    return this.triage(flags.hide ? 'stash --hide' : 'stash', this.sessionArgs(argv), (row, now) => planStash(row, now, flags.hide), {
      done: () => (flags.hide ? 'stashed (hidden)' : 'stashed'),
    })
  }

  /** Stash and park on OTHER: every refusal before any change (src/lib/triage/park.ts). */
  private async park(queries: string[], other: string, note: string | null, hide: boolean): Promise<TriageResult> {
    const {clock, store} = await this.syncedStore()
    const {resolveSession, resolveSessions} = await import('../lib/base/resolve.js')
    const {parkSessions} = await import('../lib/triage/park.js')
    const {parkLine} = await import('../lib/views/park-view.js')
    const ids = resolveSessions(store, queries)
    const otherId = resolveSession(store, other)
    const now = clock()
    const r = await parkSessions(store, {hide, ids, note, now, otherId, who: this.me})
    if (!r.ok) this.fail(r.message, r.kind === 'usage' ? EXIT.USAGE : EXIT.REFUSED)
    return this.report('stash --until-ready', r.action, ids, now, (row) => parkLine(row.park, now) ?? 'parked')
  }
}
