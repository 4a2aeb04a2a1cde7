import {Flags} from '@oclif/core'

import {teamFlags} from '../lib/cli/flags.js'
import {durationFlag} from '../lib/cli/time-flags.js'
import {TriageCommand} from '../lib/triage/triage.js'
import {verb} from '../core/model/verbs.js'

export type {KilledJson, KillJson} from '../lib/verbs/kill.js'

export default class Kill extends TriageCommand {
  static override description = `Done with it: tears the agent down and files the session under Killed (idle,
reason killed). The agent's process group gets SIGTERM, and SIGKILL whatever
still runs after the grace (default 5s); its armed scheduled messages are
cancelled; the watch stream prints one "gone" line. The transcript stays
readable and the session restartable: only a new cast send clears a kill,
and a stale queued message or a revived process cannot. cast undo brings the
card back, not the process.

Only a process whose identity is verified is signalled: its pid and start time
equal what the agent's registry, lock or the screen sweep recorded (a claim
without a start time is not verified), never pid 1 or below, never cast itself
or one of its ancestors, never a process other sessions claim too (a shared
daemon). The walk covers that process's descendants only. The output names
every pid signalled; --dry-run prints them and changes nothing. A session whose
process is live but that nothing could be signalled for is not filed: it stays
in the inbox, one line says why, and the exit code is 5.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> jhgmszz',
    {command: '<%= config.bin %> <%= command.id %> jhgmszz ou4gdp4 --grace 0', description: 'Kill two sessions, SIGKILL at once.'},
    {command: '<%= config.bin %> <%= command.id %> 6ovolyp --dry-run', description: 'Print which pids would be signalled; change nothing.'},
  ]
  static override flags = {
    ...teamFlags,
    'dry-run': Flags.boolean({summary: 'Print which processes would be signalled; signal nothing, file nothing.'}),
    grace: durationFlag({helpValue: 'D', summary: 'How long to wait after SIGTERM before SIGKILL (default 5s; 0 = at once).'}),
  }
  static override strict = false
  static override summary = verb('kill').summary
  static override usage = ['<%= command.id %> SESSION... [--grace D] [--dry-run]']

  async run(): Promise<unknown> {
    const {argv, flags} = await this.parse(Kill)
    const sessions = this.sessionArgs(argv)
    return this.verb('kill', {dryRun: flags['dry-run'], graceMs: flags.grace, sessions}, flags)
  }
}
