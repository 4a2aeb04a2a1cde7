import {Flags} from '@oclif/core'

import {BaseCommand} from '../lib/base-command.js'
import {EXIT} from '../lib/exit-codes.js'
import type {StatusCounts} from '../lib/notify/status.js'

/** `cast status --json`: the counts and the line they fill in. */
export type StatusJson = StatusCounts & {line: string}

export default class Status extends BaseCommand {
  static override description = `One short line for tmux status-right or a shell prompt: how many sessions need you
(Questions and Needs Input of your inbox, nothing filed away, no subagents) and how many have
gone quiet (working, silent for 10 minutes). "nothing needs you" when none does.

It only reads the store, which cast daemon keeps current, and answers in a few milliseconds
(bench/status.js). --format fills {need} {quiet} {questions} {working} {done} {total}.

In ~/.tmux.conf:
  set -g status-interval 5
  set -g status-right '#(cast status) '`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {command: `<%= config.bin %> <%= command.id %> --format '{need}!{quiet}'`, description: 'A compact form for a prompt.'},
    '<%= config.bin %> <%= command.id %> --json',
  ]
  static override flags = {
    format: Flags.string({helpValue: 'TEMPLATE', summary: 'The line with {need} {quiet} {questions} {working} {done} {total} filled in.'}),
  }
  static override summary = 'One line for a status bar: "3 need you · 1 quiet".'

  async run(): Promise<StatusJson> {
    const {flags} = await this.parse(Status)
    if (flags.format !== undefined) {
      const {STATUS_FIELDS, unknownStatusFields} = await import('../core/model/notify.js')
      const unknown = unknownStatusFields(flags.format)
      if (unknown.length > 0)
        this.fail(
          `--format names ${unknown.map((k) => `{${k}}`).join(', ')}, which cast status does not fill; it fills ${STATUS_FIELDS.map((k) => `{${k}}`).join(' ')}.`,
          EXIT.USAGE,
        )
    }
    const store = await this.openStore()
    const {loadConfig} = await import('../lib/config.js')
    const {renderStatus, statusCounts} = await import('../lib/notify/status.js')
    const config = await loadConfig(this.env)
    const c = statusCounts(store, this.me, this.now(), config.inbox.recencyMs)
    const line = renderStatus(c, flags.format)
    if (!this.jsonEnabled()) this.log(line)
    return {...c, line}
  }
}
