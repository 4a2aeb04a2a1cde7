import {BaseCommand} from '../../lib/cli/base-command.js'
import type {DeliveryReport} from '../../lib/agents/deliver.js'
import {EXIT} from '../../lib/base/exit-codes.js'

/** `cast schedule sweep --json`: what this sweep delivered. */
export interface ScheduleSweepJson {
  delivered: DeliveryReport[]
}

export default class ScheduleSweep extends BaseCommand {
  static override description = `Delivers every scheduled message that is due, now, through "cast send", and exits. This is the schedules part of "cast snooze sweep" and of what "cast daemon" does on its own: safe to run from cron and at the same moment as either of them, every occurrence goes out exactly once. A delivery that fails is recorded on the schedule (status failed, or the error on a recurring one) and makes the exit code 1, so cron mails it.`
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
  static override summary = 'Deliver the scheduled messages that are due.'

  async run(): Promise<ScheduleSweepJson> {
    await this.parse(ScheduleSweep)
    const store = await this.openStore()
    const {deliverDueSchedules} = await import('../../lib/agents/deliver.js')
    const delivered = await deliverDueSchedules(store, this.env, this.clock(), this.me)
    if (!this.jsonEnabled()) {
      if (delivered.length === 0) this.log('Nothing due.')
      const {humanTime} = await import('../../lib/base/time-format.js')
      const now = this.now()
      for (const d of delivered) {
        this.log(
          `${d.id} → ${d.session_id.slice(0, 7)}: ${d.ok ? `sent via ${d.via}` : `failed: ${d.error}`}${d.next_due_at ? ` (next ${humanTime(d.next_due_at, now)})` : ''}`,
        )
      }
    }

    if (delivered.some((d) => !d.ok)) {
      if (this.jsonEnabled()) {
        const {visible} = await import('../../core/model/sanitize.js')
        for (const d of delivered.filter((x) => !x.ok))
          process.stderr.write(visible(`cast: scheduled message ${d.id} failed: ${d.error}`) + '\n')
      }

      process.exitCode = EXIT.FAILURE
    }

    return {delivered}
  }
}
