import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../lib/cli/base-command.js'
import type {ScheduleJson} from '../../lib/agents/deliver.js'
import {families} from '../../core/store/families.js'

/** `cast schedule list --json`: the schedules by due time. */
export interface ScheduleListJson {
  schedules: ScheduleJson[]
}

export default class ScheduleList extends BaseCommand {
  static override args = {session: Args.string({description: "Only this session's schedules (id or prefix)."})}
  static override description = `Lists scheduled messages by due time: the armed ones (and any being delivered right now), or with --all also the delivered, cancelled and failed ones, with their delivery count and last error.`
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> kdsmarj --all --json']
  static override flags = {all: Flags.boolean({summary: 'Include delivered, cancelled and failed schedules.'})}
  static override summary = 'List scheduled messages.'

  async run(): Promise<ScheduleListJson> {
    const {args, flags} = await this.parse(ScheduleList)
    const store = await this.openStore()
    const now = this.now()
    const {resolveSession} = await import('../../lib/base/resolve.js')
    const {listSchedules} = await families.schedules()
    const {scheduleJson} = await import('../../lib/agents/deliver.js')
    const sessionId = args.session === undefined ? undefined : resolveSession(store, args.session)
    const list = listSchedules(store, {all: flags.all, sessionId})
    if (!this.jsonEnabled()) {
      if (list.length === 0) {
        this.log(flags.all ? 'No scheduled messages.' : 'No armed scheduled messages. (--all shows past ones.)')
      } else {
        const {boxTable} = await import('../../lib/views/table.js')
        const {terminalWidth} = await import('../../lib/views/style.js')
        const {shortId} = await import('../../core/model/ids.js')
        const {formatIn} = await import('../../core/model/age.js')
        const {humanTime} = await import('../../lib/base/time-format.js')
        const cells: string[][] = []
        for (const s of list) {
          const pending = s.status === 'armed' ? `\n${s.dueAt > now ? formatIn(s.dueAt - now) : 'due now'}` : ''
          const due = `${humanTime(s.dueAt, now)}${pending}`
          const status = s.status + (s.deliveries > 0 ? ` ×${s.deliveries}` : '') + (s.lastError ? '\n(error)' : '')
          cells.push([
            s.id,
            shortId(s.sessionId),
            due,
            s.everyMs === null ? '-' : formatEvery(s.everyMs),
            status,
            s.message + (s.lastError ? `\nerror: ${s.lastError}` : ''),
          ])
        }

        const head = ['ID', 'SESSION', 'DUE', 'EVERY', 'STATUS', 'MESSAGE']
        this.log(await boxTable(cells, {flex: [5, 2], head, max: {2: 22, 5: 38}, width: terminalWidth(this.env), wrap: true}))
      }
    }

    return {schedules: list.map((s) => scheduleJson(s))}
  }
}

function formatEvery(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000}d`
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`
  if (ms % 60_000 === 0) return `${ms / 60_000}m`
  return `${Math.round(ms / 1000)}s`
}
