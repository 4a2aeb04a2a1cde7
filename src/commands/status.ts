import {Flags} from '@oclif/core'

import {BaseCommand} from '../lib/cli/base-command.js'
import {EXIT} from '../lib/base/exit-codes.js'
import type {StatusCounts} from '../lib/notify/status.js'

/** `cast status --json`: the counts and the line they fill in; `synced` false before the first sync. */
export type StatusJson = StatusCounts & {line: string; synced: boolean; stale?: true}

export default class Status extends BaseCommand {
  static override description = `One short line for tmux status-right or a shell prompt: how many sessions need you
(Questions and Needs Input of your inbox, nothing filed away, no subagents) and how many have
gone quiet (working, silent for 10 minutes). "nothing needs you" when none does;
"? not yet synced" before the first sync (no store yet: run cast sessions or cast daemon).

It only reads the store, which cast daemon keeps current, and answers from a small file
(status.json in the cast home) while nothing changed (bench/status.js). --format fills
{need} {quiet} {questions} {working} {done} {total}.

In ~/.tmux.conf:
  set -g status-interval 5
  set -g status-right '#(cast status) '
With cast daemon running, a status line can read the line the daemon keeps current without
starting Node at all: put the file cast status --path prints in the line, e.g.
  set -g status-right '#(cat ~/.local/share/cast/status.line) '`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {command: `<%= config.bin %> <%= command.id %> --format '{need}!{quiet}'`, description: 'A compact form for a prompt.'},
    '<%= config.bin %> <%= command.id %> --json',
  ]
  static override flags = {
    format: Flags.string({helpValue: 'TEMPLATE', summary: 'The line with {need} {quiet} {questions} {working} {done} {total} filled in.'}),
    path: Flags.boolean({summary: 'Print the file cast daemon keeps the line in, for a status bar that reads it without Node.'}),
  }
  static override summary = 'One line for a status bar: "3 need you · 1 quiet".'

  async run(): Promise<StatusJson | {path: string}> {
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
    const fs = await import('node:fs')
    const path = await import('node:path')
    const {castHome} = await import('../lib/home/env.js')
    if (flags.path) {
      const {STATUS_LINE} = await import('../lib/notify/status-cache.js')
      const file = path.join(castHome(this.env), STATUS_LINE)
      if (!this.jsonEnabled()) this.log(file)
      return {path: file}
    }

    const {UNSYNCED} = await import('../lib/notify/status.js')
    if (!fs.existsSync(path.join(castHome(this.env), 'cast.db'))) {
      if (!this.jsonEnabled()) this.log(UNSYNCED.line)
      return {...UNSYNCED}
    }

    const store = await this.openStore({forReading: true})
    const {loadConfig} = await import('../lib/home/config.js')
    const {renderStatus, staleMark, statusCounts} = await import('../lib/notify/status.js')
    const config = await loadConfig(this.env)
    const c = statusCounts(store, this.me, this.now(), config.inbox.recencyMs)
    const line = staleMark(renderStatus(c, flags.format), store.stale)
    if (!this.jsonEnabled()) this.log(line)
    return {...c, line, synced: true, ...(store.stale ? {stale: true as const} : {})}
  }
}
