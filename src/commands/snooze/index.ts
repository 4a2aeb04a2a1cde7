import {durationFlag, timeFlag} from '../../lib/cli/time-flags.js'
import {TriageCommand} from '../../lib/triage/triage.js'
import {verb} from '../../core/model/verbs.js'

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
    for: durationFlag({exactlyOne: ['for', 'until'], helpValue: 'D', min: 1, summary: 'Snooze for this long (2h, 30m, 1d).'}),
    until: timeFlag({
      exactlyOne: ['for', 'until'],
      future: true,
      helpValue: 'T',
      summary: 'Snooze until this time (tomorrow 9am, ISO 8601).',
    }),
  }
  static override strict = false
  static override summary = verb('snooze').summary
  static override usage = ['<%= command.id %> SESSION... --for D', '<%= command.id %> SESSION... --until T', '<%= command.id %> sweep']

  async run(): Promise<unknown> {
    const {argv, flags} = await this.parse(Snooze)
    const sessions = this.sessionArgs(argv)
    // exactlyOne: one of the two is set. --for counts from the moment the snooze is filed.
    return this.verb('snooze', flags.for === undefined ? {sessions, until: flags.until} : {forMs: flags.for, sessions})
  }
}
