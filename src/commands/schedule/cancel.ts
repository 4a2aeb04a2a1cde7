import {Args} from '@oclif/core'

import {BaseCommand} from '../../lib/cli/base-command.js'
import type {ScheduleJson} from '../../lib/agents/deliver.js'
import {EXIT} from '../../lib/base/exit-codes.js'
import {families} from '../../core/store/families.js'

export default class ScheduleCancel extends BaseCommand {
  static override args = {id: Args.string({description: 'Schedule id or a unique prefix (4+ characters).', required: true})}
  static override description =
    'Disarms a scheduled message (a recurring one stops for good). The session is re-placed at once: without the trigger, a settled session reads needs_input again.'
  static override examples = [
    {
      command:
        'id=$(<%= config.bin %> schedule kdsmarj --in 2h "Check whether CI passed" --json | jq -r .id) && <%= config.bin %> <%= command.id %> "$id"',
      description: 'Schedule a message, keep its id, cancel it.',
    },
  ]
  static override summary = 'Cancel a scheduled message.'

  async run(): Promise<ScheduleJson> {
    const {args} = await this.parse(ScheduleCancel)
    const store = await this.openStore()
    const now = this.now()
    const {cancelSchedule, findSchedule} = await families.schedules()
    const {scheduleJson} = await import('../../lib/agents/deliver.js')
    const found = findSchedule(store, args.id)
    if (found.kind === 'many')
      this.fail(`"${args.id}" matches several schedules; type more of the id: ${found.ids.join(', ')}`, EXIT.AMBIGUOUS)
    if (found.kind === 'none') {
      this.fail(`No schedule matches "${args.id}".`, EXIT.NOT_FOUND, ['List them with: cast schedule list --all'])
    }

    const r = cancelSchedule(store, found.schedule.id, now)!
    if (!r.cancelled) this.fail(`Schedule ${r.schedule.id} is ${r.schedule.status}, not armed: nothing to cancel.`, EXIT.REFUSED)
    const row = store.loadSessions([r.schedule.sessionId])[0]
    if (!this.jsonEnabled())
      this.log(`${r.schedule.id}: cancelled${row ? `; session ${row.id.slice(0, 7)} now ${row.state}:${row.reason}` : ''}`)
    return scheduleJson(r.schedule)
  }
}
