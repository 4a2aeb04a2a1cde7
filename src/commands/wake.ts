import {TriageCommand, type TriageResult} from '../lib/triage.js'
import type {RecordsPatch} from '../core/store/store.js'

export default class Wake extends TriageCommand {
  static override description = `Moves sessions to Needs Input now. A snoozed session ends its snooze early
(reason snooze_expired until its next activity); any other session is marked
needs-input, as cast mark needs-input does. A stash or dismiss is lifted. A
killed session is refused (exit 5): cast restore brings its card back.`
  static override examples = ['<%= config.bin %> <%= command.id %> et4lssa', '<%= config.bin %> <%= command.id %> et4lssa bccgmd6 --json']
  static override strict = false
  static override summary = 'Move sessions to Needs Input now (ends a snooze early).'
  static override usage = ['<%= command.id %> SESSION...']

  async run(): Promise<TriageResult> {
    const {argv} = await this.parse(Wake)
    const {isKilled} = await import('../core/model/work-state.js')
    const {handoffClearsFiling} = await import('../core/model/reconcile.js')
    const {shortId} = await import('../core/model/ids.js')
    return this.triage(
      'wake',
      this.sessionArgs(argv),
      (row, now) => {
        const r = row.records
        const records: RecordsPatch = {}
        if (handoffClearsFiling(r.filing)) Object.assign(records, {filedAt: null, filing: null})
        if (r.snoozedUntil !== null && r.snoozedUntil > now) records.snoozedUntil = now
        else Object.assign(records, {snoozedUntil: null, verdict: 'needs_input', verdictAt: now})
        return {records}
      },
      {
        done: () => 'woken',
        refuse: (row) =>
          isKilled(row.records)
            ? `${shortId(row.id)} is killed: "cast restore ${shortId(row.id)}" brings its card back (nothing was woken).`
            : null,
      },
    )
  }
}
