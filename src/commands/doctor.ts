import {Flags} from '@oclif/core'

import {BaseCommand} from '../lib/cli/base-command.js'
import type {DoctorReport} from '../lib/views/doctor/report.js'

export type {DoctorAdapter, DoctorHooks, DoctorProblem, DoctorReport, DoctorRoot, StateSource} from '../lib/views/doctor/report.js'

export default class Doctor extends BaseCommand {
  static override description = `For every agent cast reads: where it looks (each root, and whether it exists), how many
sessions it found, the files it read and their malformed lines, whether cast's hooks are
installed, and the best source of state it has (hooks, then a process registry or lock file,
then the transcript, then the tmux screen). Then the store, tmux and the config.

Exits 1 only for a real problem: a store cast cannot read, or a hook that points at a cast-hook
binary that is not there (the agent would fail running it). Everything else is reported, with
what to run, and exits 0.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --json',
    '<%= config.bin %> <%= command.id %> --repair',
  ]
  static override flags = {
    repair: Flags.boolean({
      summary:
        "When the store's integrity check fails: copy what can be read into a new store (cast's own records: states, pins, owners, labels, decisions, the log), keep the damaged file beside it, and re-read the agents' files.",
    }),
  }
  static override summary = 'Check what cast can read on this machine, agent by agent.'

  async run(): Promise<DoctorReport> {
    const {flags} = await this.parse(Doctor)
    const {doctorReport} = await import('../lib/views/doctor/report.js')
    const report = await doctorReport({
      clock: this.clock(),
      env: this.env,
      me: this.me,
      openStore: () => this.openStore(),
      repair: flags.repair,
      warn: (line) => process.stderr.write(line),
    })
    if (report.problems.length > 0) process.exitCode = 1
    if (this.jsonEnabled()) return report
    const {renderDoctor} = await import('../lib/views/doctor/render.js')
    const {fitLines, terminalWidth} = await import('../lib/views/style.js')
    const {wrapWords} = await import('../lib/cli/help.js')
    const {visible} = await import('../core/model/sanitize.js')
    // Long lines (a problem's fix) wrap at word boundaries to the terminal's width; a single word
    // wider than the terminal (a path) is cut with ….
    const width = terminalWidth(this.env)
    for (const line of renderDoctor(report, this.env))
      this.logStyled(fitLines(width === null ? visible(line) : wrapWords(visible(line), width), width))
    return report
  }
}
