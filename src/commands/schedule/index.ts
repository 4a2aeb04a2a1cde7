import {Args} from '@oclif/core'

import {BaseCommand} from '../../lib/cli/base-command.js'
import {EXIT} from '../../lib/base/exit-codes.js'
import type {ScheduleJson} from '../../lib/agents/deliver.js'
import {sessionFlag} from '../../lib/cli/flags.js'
import {durationFlag, flagInput, timeFlag} from '../../lib/cli/time-flags.js'
import {families} from '../../core/store/families.js'

/** Shorter recurring intervals would make a session a busy loop. */
const MIN_EVERY_MS = 60_000

export default class Schedule extends BaseCommand {
  static override args = {
    session: Args.string({description: 'The session to message (id or prefix). Omit it to schedule into your own session.'}),
    message: Args.string({description: 'The message; "-" reads it from stdin.'}),
  }
  static override description = `Arms a message to be sent into a session later, once (--at T or --in D) or again and again (--every D, first at --at/--in or one interval from now). It is delivered through "cast send" by "cast daemon" or "cast snooze sweep" (cron), exactly once per occurrence even when both run at the same moment.

An armed schedule is a wake cast can verify: a settled session with a recurring schedule, or one that declared done with a one-shot armed, reads dormant (reason trigger). A kill cancels the session's schedules.

Times: ISO 8601, epoch ms, or words ("tomorrow 9am", "friday 3pm", "in 2 hours"). Durations: 90s, 15m, 2h, 1d, 1h30m.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> kdsmarj --in 2h "Check whether CI run 8841 passed"',
    '<%= config.bin %> <%= command.id %> kdsmarj --at "tomorrow 9am" --every 1d "Triage the new issues"',
    {
      command: '<%= config.bin %> <%= command.id %> --in 30m "Re-check the deploy"',
      description: 'From inside an agent: into its own session.',
    },
  ]
  static override flags = {
    at: timeFlag({exclusive: ['in'], future: true, helpValue: 'T', summary: 'When: a time ("tomorrow 9am", ISO 8601, epoch ms).'}),
    every: durationFlag({helpValue: 'D', min: MIN_EVERY_MS, minText: '1m', summary: 'Repeat every D (at least 1m).'}),
    in: durationFlag({exclusive: ['at'], helpValue: 'D', min: 1, summary: 'When: after a duration (90s, 15m, 2h, 1d).'}),
    session: sessionFlag,
  }
  static override summary = 'Schedule a message into a session, once or recurring.'

  private async namesSession(word: string): Promise<boolean> {
    const {resolvePrefix} = await import('../../core/model/ids.js')
    const store = await this.openStore()
    return resolvePrefix(word, store.sessionIds()).kind !== 'none'
  }

  async run(): Promise<ScheduleJson> {
    const {args, flags, raw} = await this.parse(Schedule)
    // One positional: the message, into my own session.
    const target = args.message === undefined ? undefined : args.session
    let message = args.message ?? args.session
    if (message === undefined) this.fail('What should be sent? cast schedule SESSION --in D "MESSAGE"', EXIT.USAGE)
    // `cast schedule 3f9a2c1 --in 2h` names a session and forgot the message: never send the id as text.
    if (args.message === undefined && /^[\w.:-]{4,}$/.test(message) && (await this.namesSession(message))) {
      this.fail(`"${message}" is a session, and the message is missing: cast schedule ${message} --in D "MESSAGE"`, EXIT.USAGE)
    }
    if (message === '-') {
      const {readStdin} = await import('../../lib/cli/stdin.js')
      message = (await readStdin()).replace(/\n+$/, '')
    }

    if (message.trim() === '') this.fail('The message is empty.', EXIT.USAGE)
    if (flags.at === undefined && flags.in === undefined && flags.every === undefined) {
      this.fail('Say when: --at T, --in D, or --every D.', EXIT.USAGE, ['cast schedule 3f9a2c1 --in 2h "Check CI"'])
    }

    const {clock, store} = await this.syncedStore()
    const now = clock()
    const everyMs = flags.every ?? null
    // One of the three is set (checked above); --at and --in are exclusive.
    const dueAt = flags.at ?? now + (flags.in ?? everyMs!)
    const {resolveSession} = await import('../../lib/base/resolve.js')
    const {findOwnSession} = await import('../../lib/agents/self-session.js')
    const {createSchedule} = await families.schedules()
    const {scheduleJson} = await import('../../lib/agents/deliver.js')
    const sessionId = target === undefined ? findOwnSession(store, flags.session, this.env).id : resolveSession(store, target)
    const s = createSchedule(store, {createdAt: now, createdBy: this.me, dueAt, everyMs, message, sessionId})
    const json = scheduleJson(s)
    if (!this.jsonEnabled()) {
      const {formatIn} = await import('../../core/model/age.js')
      const {humanTime} = await import('../../lib/base/time-format.js')
      const row = store.loadSessions([sessionId])[0]!
      this.log(
        `${s.id}: into ${json.short_id} at ${humanTime(dueAt, now)} (${formatIn(dueAt - now)})${everyMs ? `, every ${flagInput(raw, 'every')}` : ''}; session now ${row.state}:${row.reason}`,
      )
    }

    return json
  }
}
