import {BaseCommand} from '../../lib/base-command.js'
import type {SessionJson} from '../../lib/views.js'

export interface SweepJson {
  now: string
  woken: SessionJson[]
  /** Other sessions whose time rules came due and were re-checked. */
  checked: number
  transitions: number
  /** Scheduled messages delivered by this sweep. */
  delivered: number
}

export default class SnoozeSweep extends BaseCommand {
  static override description = `For cron: wakes every snoozed session whose time has come (it reads
needs_input, reason snooze_expired, until its next activity), re-checks the
other sessions whose time rules came due, and delivers due scheduled
messages. Prints what it woke.

Idempotent and safe to run at the same time as itself and the daemon: each
snooze is woken by exactly one sweep and each change is one line in the
transitions log. CAST_NOW sets the clock (reproducible sweeps).`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {
      command: '<%= config.bin %> <%= command.id %> --json >> ~/cast-sweep.log',
      description: 'What a crontab line runs, e.g. every five minutes: */5 * * * * followed by this.',
    },
  ]
  static override summary = 'Wake snoozed sessions that came due and deliver due scheduled messages.'

  async run(): Promise<SweepJson> {
    await this.parse(SnoozeSweep)
    const store = await this.openStore()
    const clock = this.clock()
    const {sweepSnoozes} = await import('../../core/store/triage.js')
    const {deliverDue} = await import('../../lib/deliver-hook.js')
    const {sessionJson, titleOf} = await import('../../lib/views.js')
    const {shortId} = await import('../../core/model/ids.js')
    const now = clock()
    const swept = sweepSnoozes(store, now)
    // Scheduled messages (cast schedule) go out through the delivery module once it exists.
    const delivered = await deliverDue(store, this.env, clock, this.me)
    const rows = store.loadSessions(swept.woken)
    if (!this.jsonEnabled()) {
      if (rows.length === 0) this.log('Nothing came due.')
      for (const row of rows) {
        this.log(`woke ${shortId(row.id)}  ${titleOf(row) ?? '(untitled)'}  → ${row.bucket} (${row.state}:${row.reason})`)
      }

      if (delivered > 0) this.log(`delivered ${delivered} scheduled message${delivered === 1 ? '' : 's'}`)
    }

    return {
      checked: swept.checked.length,
      delivered,
      now: new Date(now).toISOString(),
      transitions: swept.transitions,
      woken: rows.map((r) => sessionJson(r, this.me, now)),
    }
  }
}
