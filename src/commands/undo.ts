import {Flags} from '@oclif/core'

import {BaseCommand} from '../lib/cli/base-command.js'
import {EXIT} from '../lib/base/exit-codes.js'
import type {SessionJson} from '../lib/views/views.js'
import {verb} from '../core/model/verbs.js'
import {families} from '../core/store/families.js'

export interface HistoryJson {
  action: number
  at: string
  who: string
  verb: string
  sessions: string[]
  undone_at: string | null
}

export type UndoJson = {history: HistoryJson[]} | {undone: HistoryJson; sessions: SessionJson[]}

export default class Undo extends BaseCommand {
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

  async run(): Promise<UndoJson> {
    const {flags} = await this.parse(Undo)
    const store = await this.openStore()
    const clock = this.clock()
    const {listActions, undoLast} = await families.triage()
    const {shortId} = await import('../core/model/ids.js')
    const toJson = (a: {
      action: number
      at: number
      who: string
      verb: string
      sessions: readonly string[]
      undoneAt: number | null
    }): HistoryJson => ({
      action: a.action,
      at: new Date(a.at).toISOString(),
      sessions: [...a.sessions],
      undone_at: a.undoneAt === null ? null : new Date(a.undoneAt).toISOString(),
      verb: a.verb,
      who: a.who,
    })

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

    const {sessionJson, titleOf} = await import('../lib/views/views.js')
    await this.sync(store, clock)
    const now = clock()
    const undone = undoLast(store, this.me, now)
    if (undone === null)
      this.fail(`Nothing to undo: ${this.me} has no triage action left in the history.`, EXIT.NOT_FOUND, ['cast undo --list'])
    const rows = store.loadSessions(undone.sessions)
    if (!this.jsonEnabled()) {
      this.log(`undid #${undone.action} ${undone.verb} (${(await import('../lib/base/time-format.js')).humanTime(undone.at, now)})`)
      for (const row of rows) this.log(`${shortId(row.id)}  ${titleOf(row) ?? '(untitled)'}  → ${row.bucket} (${row.state}:${row.reason})`)
      if (undone.verb === 'kill') this.log('The card is back; the agent stays stopped (cast send restarts it).')
    }

    return {sessions: rows.map((r) => sessionJson(r, this.me, now)), undone: toJson(undone)}
  }
}
