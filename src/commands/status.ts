import {Flags} from '@oclif/core'

import {BaseCommand} from '../lib/cli/base-command.js'
import {EXIT} from '../lib/base/exit-codes.js'
import type {CastConfig} from '../lib/home/config-shape.js'
import type {HostStatusJson} from '../lib/fleet/status.js'
import type {StatusCounts} from '../lib/notify/status.js'

/** `cast status --json`: the counts and the line they fill in; `synced` false before the first sync. */
export type StatusJson = StatusCounts & {line: string; synced: boolean; stale?: true; hosts?: HostStatusJson[]}

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
  set -g status-right '#(cat ~/.local/share/cast/status.line) '

--fleet adds each host of cast hosts (its own cast status over ssh, each within its budget) to the
counts; the hosts that did not answer are named at the end of the line ("· laptop unreachable").
"fleet": {"default": true} in the config makes it the default (--no-fleet: this machine only).`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {command: `<%= config.bin %> <%= command.id %> --format '{need}!{quiet}'`, description: 'A compact form for a prompt.'},
    '<%= config.bin %> <%= command.id %> --json',
  ]
  static override flags = {
    fleet: Flags.boolean({allowNo: true, summary: 'Count the sessions of every host of cast hosts too (docs/fleet.md).'}),
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

    const {loadConfig} = await import('../lib/home/config.js')
    const config = await loadConfig(this.env)
    const fleet = (flags.fleet ?? config.fleet?.byDefault === true) && (config.hosts ?? []).length > 0
    if (flags.fleet === true && !fleet)
      this.fail('No hosts for --fleet: "cast hosts add NAME [user@]host[:port]" adds one.', EXIT.NOT_FOUND)
    if (fleet) return this.fleet(config, flags.format)
    const {UNSYNCED} = await import('../lib/notify/status.js')
    if (!fs.existsSync(path.join(castHome(this.env), 'cast.db'))) {
      if (!this.jsonEnabled()) this.log(UNSYNCED.line)
      return {...UNSYNCED}
    }

    const store = await this.openStore({forReading: true})
    const {renderStatus, staleMark, statusCounts} = await import('../lib/notify/status.js')
    const c = statusCounts(store, this.me, this.now(), config.inbox.recencyMs)
    const line = staleMark(renderStatus(c, flags.format), store.stale)
    if (!this.jsonEnabled()) this.log(line)
    return {...c, line, synced: true, ...(store.stale ? {stale: true as const} : {})}
  }

  /** This machine's counts and each host's, asked at once; the hosts that did not answer named in the line. */
  private async fleet(config: CastConfig, format: string | undefined): Promise<StatusJson> {
    const fs = await import('node:fs')
    const path = await import('node:path')
    const {castHome} = await import('../lib/home/env.js')
    const {downTail, fleetStatus, sumCounts} = await import('../lib/fleet/status.js')
    const {renderStatus, staleMark, statusCounts} = await import('../lib/notify/status.js')
    // The hosts' ssh children start first and run while this machine's counts are read.
    const remote = fleetStatus(config, this.env)
    const synced = fs.existsSync(path.join(castHome(this.env), 'cast.db'))
    const store = synced ? await this.openStore({forReading: true}) : null
    const zero = {done: 0, need: 0, needs_input: 0, questions: 0, quiet: 0, working: 0}
    const local = store ? statusCounts(store, this.me, this.now(), config.inbox.recencyMs) : zero
    const hosts = await remote
    const c = sumCounts(local, hosts)
    const answered = synced || hosts.some((h) => h.counts !== null)
    const line = answered
      ? staleMark(renderStatus(c, format), store?.stale === true) + downTail(hosts)
      : `? not yet synced${downTail(hosts)}`
    if (!this.jsonEnabled()) this.log(line)
    return {...c, hosts, line, synced: answered, ...(store?.stale ? {stale: true as const} : {})}
  }
}
