import {Args} from '@oclif/core'

import {BaseCommand} from '../lib/cli/base-command.js'
import {families} from '../core/store/families.js'

export interface OwnersJson {
  id: string
  short_id: string
  title: string | null
  runner: string | null
  device: string | null
  owners: {who: string; added_at: string; added_by: string}[]
  /** Is it in my inbox? */
  in_my_inbox: boolean
}

export default class Owners extends BaseCommand {
  static override args = {
    session: Args.string({description: 'Session id, native id, or a unique prefix (4+ characters).', required: true}),
  }
  static override description = `Lists who owns a session (who added each owner, and when), who runs it and
on which device, and whether it is in your inbox.`
  static override examples = ['<%= config.bin %> <%= command.id %> kdsmarj', '<%= config.bin %> <%= command.id %> kdsmarj --json']
  static override summary = "List a session's owners."

  async run(): Promise<OwnersJson> {
    const {args} = await this.parse(Owners)
    const {resolveSession} = await import('../lib/base/resolve.js')
    const {ownersOf} = await families.ownership()
    const {titleOf} = await import('../lib/views/views.js')
    const {inView} = await import('../core/model/view.js')
    const {loadConfig} = await import('../lib/home/config.js')
    const {shortId} = await import('../core/model/ids.js')
    const config = await loadConfig(this.env)
    const {clock, store} = await this.syncedStore()
    const id = resolveSession(store, args.session)
    const row = store.loadSessions([id])[0]!
    const owners = ownersOf(store, id)
    const result: OwnersJson = {
      device: row.device,
      id,
      in_my_inbox: inView(row, this.me, clock(), {recencyMs: config.inbox.recencyMs}),
      owners: owners.map((o) => ({added_at: new Date(o.addedAt).toISOString(), added_by: o.addedBy, who: o.who})),
      runner: row.runner,
      short_id: shortId(id),
      title: titleOf(row),
    }
    if (!this.jsonEnabled()) {
      const {humanTime} = await import('../lib/base/time-format.js')
      const lines = [
        `${result.short_id}  ${result.title ?? '(untitled)'}`,
        `run by ${row.runner ?? 'unknown'}${row.device ? ` on ${row.device}` : ''}`,
      ]
      if (owners.length === 0) lines.push('no owners: it stays with whoever runs it')
      for (const o of result.owners) lines.push(`owner ${o.who}  (added by ${o.added_by}, ${humanTime(o.added_at, clock())})`)
      lines.push(result.in_my_inbox ? `in your inbox (${this.me})` : `not in your inbox (${this.me})`)
      // One line each (a title or a name with a newline stays on its line), cut to the terminal.
      const {oneLine} = await import('../core/model/sanitize.js')
      await this.logFitted(lines.map((l) => oneLine(l)).join('\n'))
    }

    return result
  }
}
