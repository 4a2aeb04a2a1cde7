import {BaseCommand} from '../../lib/cli/base-command.js'
import type {DeliveryReport} from '../../lib/agents/deliver.js'
import {EXIT} from '../../lib/base/exit-codes.js'
import type {SessionJson} from '../../lib/views/views.js'
import {families} from '../../core/store/families.js'

export interface SweepJson {
  now: string
  woken: SessionJson[]
  /** Other sessions whose time rules came due and were re-checked. */
  checked: number
  transitions: number
  /** Scheduled messages delivered by this sweep. */
  delivered: number
  /** Due scheduled messages this sweep could not deliver (the exit code is then 1). */
  failed: DeliveryReport[]
}

export default class SnoozeSweep extends BaseCommand {
  static override description = `For cron: wakes every snoozed session whose time has come (it reads
needs_input, reason snooze_expired, until its next activity), re-checks the
other sessions whose time rules came due, and delivers due scheduled
messages. Prints what it woke. A due scheduled message that fails to go
out is one line on stderr and exit code 1 (cron mails it); the rest of the
sweep is done.

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
    const {sweepSnoozes} = await families.triage()
    const {deliverDueSchedules} = await import('../../lib/agents/deliver.js')
    const {sessionJson, titleOf} = await import('../../lib/views/views.js')
    const {shortId} = await import('../../core/model/ids.js')
    const now = clock()
    const swept = sweepSnoozes(store, now)
    const reports = await deliverDueSchedules(store, this.env, clock, this.me)
    const delivered = reports.filter((r) => r.ok).length
    const failed = reports.filter((r) => !r.ok)
    const rows = store.loadSessions(swept.woken)
    if (!this.jsonEnabled()) {
      if (rows.length === 0 && reports.length === 0) this.log('Nothing came due.')
      for (const row of rows) {
        this.log(`woke ${shortId(row.id)}  ${titleOf(row) ?? '(untitled)'}  → ${row.bucket} (${row.state}:${row.reason})`)
      }

      if (delivered > 0) this.log(`delivered ${delivered} scheduled message${delivered === 1 ? '' : 's'}`)
    }

    const {visible} = await import('../../core/model/sanitize.js')
    for (const f of failed) {
      process.stderr.write(
        visible(`cast: scheduled message ${f.id} to ${shortId(f.session_id)} failed: ${f.error ?? 'unknown error'}`) + '\n',
      )
    }

    if (failed.length > 0) process.exitCode = EXIT.FAILURE
    return {
      checked: swept.checked.length,
      delivered,
      failed,
      now: new Date(now).toISOString(),
      transitions: swept.transitions,
      woken: rows.map((r) => sessionJson(r, this.me, now)),
    }
  }
}
