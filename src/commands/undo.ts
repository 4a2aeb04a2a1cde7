import {Flags} from '@oclif/core'

import {TriageCommand} from '../lib/triage/triage.js'
import {verb} from '../core/model/verbs.js'
import {families} from '../core/store/families.js'

export type {HistoryJson} from '../lib/verbs/history.js'

export default class Undo extends TriageCommand {
  static override description = `Reverts your last triage action that is not undone yet: every filing verb
(stash, dismiss, restore, pin, unpin, defer, mark, label, rename, snooze,
wake), kill, own and disown land in one history, and an action on several
sessions is undone as one. Each cast undo goes one action further back.
Undoing a kill brings the card back, not the process: the agent stays
stopped, and scheduled messages the kill cancelled are armed again.

--list shows the history, newest first (yours; --everyone for every
identity).`
  static override examples = [
    {
      command: '<%= config.bin %> dismiss 6emibs5 && <%= config.bin %> <%= command.id %>',
      description: 'Take back your last triage action (here the dismiss).',
    },
    '<%= config.bin %> <%= command.id %> --list',
    '<%= config.bin %> <%= command.id %> --list --everyone --limit 50 --json',
  ]
  static override flags = {
    everyone: Flags.boolean({dependsOn: ['list'], summary: "With --list: every identity's actions, not only yours."}),
    limit: Flags.integer({default: 20, min: 1, summary: 'With --list: how many actions to show.'}),
    list: Flags.boolean({summary: 'Show the history instead of undoing.'}),
  }
  static override summary = verb('undo').summary

  async run(): Promise<unknown> {
    const {flags} = await this.parse(Undo)
    const store = await this.openStore()
    const {listActions} = await families.triage()
    const {shortId} = await import('../core/model/ids.js')
    const {historyJson: toJson} = await import('../lib/verbs/history.js')
    if (flags.list) {
      const history = listActions(store, flags.everyone ? null : this.me, flags.limit).map(toJson)
      if (!this.jsonEnabled()) {
        if (history.length === 0) this.log(flags.everyone ? 'No triage actions yet.' : `No triage actions by ${this.me} yet.`)
        const width = Math.max(0, ...history.map((h) => `#${h.action}`.length))
        const {humanTime} = await import('../lib/base/time-format.js')
        const now = this.now()
        for (const h of history) {
          const ids = h.sessions.map(shortId)
          const list = ids.length > 4 ? `${ids.slice(0, 4).join(' ')} +${ids.length - 4}` : ids.join(' ')
          const who = flags.everyone ? `  ${h.who}` : ''
          this.log(
            `${`#${h.action}`.padEnd(width)}  ${humanTime(h.at, now).padEnd(16)}${who}  ${h.verb.padEnd(14)} ${list}${h.undone_at ? `  (undone ${humanTime(h.undone_at, now)})` : ''}`,
          )
        }
      }

      return {history}
    }

    return this.verb('undo', {})
  }
}
