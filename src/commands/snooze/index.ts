import {Flags} from '@oclif/core'

import {EXIT} from '../../lib/exit-codes.js'
import {TriageCommand, type TriageResult} from '../../lib/triage.js'

export default class Snooze extends TriageCommand {
  static override description = `Snoozes sessions you are not ready to triage yet: each reads dormant (reason
snoozed) in the collapsed Snoozed section until its time, then needs_input
(reason snooze_expired) until its next activity. The time comes by the
clock: cast sessions, the daemon and cast snooze sweep (for cron) all see
it; cast wake ends a snooze early.

--for takes a duration (90s, 15m, 2h, 1h30m, 2d); --until a time (tomorrow
9am, friday 3pm, in 2 hours, 2026-12-01T09:00:00Z, epoch ms). Local times
use this machine's time zone.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> grjaguv --for 2h',
    '<%= config.bin %> <%= command.id %> grjaguv kdsmarj --until "tomorrow 9am"',
    {command: '<%= config.bin %> <%= command.id %> sweep', description: 'For cron: wake what came due.'},
  ]
  static override flags = {
    for: Flags.string({exactlyOne: ['for', 'until'], helpValue: 'D', summary: 'Snooze for this long (2h, 30m, 1d).'}),
    until: Flags.string({exactlyOne: ['for', 'until'], helpValue: 'T', summary: 'Snooze until this time (tomorrow 9am, ISO 8601).'}),
  }
  static override strict = false
  static override summary = 'Snooze sessions until a time; they come back as needs input.'
  static override usage = ['<%= command.id %> SESSION... --for D', '<%= command.id %> SESSION... --until T', '<%= command.id %> sweep']

  async run(): Promise<TriageResult> {
    const {argv, flags} = await this.parse(Snooze)
    const sessions = this.sessionArgs(argv)
    const {parseDuration, parseTime} = await import('../../core/model/durations.js')
    const now = this.now()
    let until: number
    if (flags.for !== undefined) {
      const ms = parseDuration(flags.for)
      if (ms === null || ms <= 0) this.fail(`--for "${flags.for}" is not a duration: try 90s, 15m, 2h, 1h30m or 2d.`, EXIT.USAGE)
      until = now + ms
    } else {
      const t = parseTime(flags.until ?? '', now)
      if (t === null) this.fail(`--until "${flags.until}" is not a time: try "tomorrow 9am", "friday 3pm", "in 2 hours" or ISO 8601.`, EXIT.USAGE)
      if (t <= now) this.fail(`--until "${flags.until}" is ${(await import('../../lib/time-format.js')).humanTime(t, now)}, already past.`, EXIT.USAGE)
      until = t
    }

    const {humanTime} = await import('../../lib/time-format.js')
    const when = humanTime(until, now)
    return this.triage('snooze', sessions, (_row, at) => ({records: {filedAt: at, filing: 'snoozed', snoozedUntil: until}}), {
      done: () => `snoozed until ${when}`,
    })
  }
}
