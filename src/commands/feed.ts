import {Flags} from '@oclif/core'
import path from 'node:path'

import {BaseCommand} from '../lib/cli/base-command.js'
import {filterFlags} from '../lib/cli/flags.js'
import type {FeedJson} from '../lib/views/feed.js'

export type {FeedJson} from '../lib/views/feed.js'

export default class Feed extends BaseCommand {
  static override description = `The team's recent sessions, everyone's, for the current directory and the
folders under it (every directory with -g), newest activity first.
Read-only: a teammate's session shows here because the team can see it,
which says nothing about whose move it is; it enters your inbox only when
you own it (cast own).

"Recent" is the inbox's recency window (7 days unless the config's
inbox.recency says otherwise). WHO lists a session's owners, else who runs
it. --label filters by your own label.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> -g --state needs_input',
    '<%= config.bin %> <%= command.id %> -m ana@example.com --json',
    '<%= config.bin %> <%= command.id %> --mine',
  ]
  static override flags = {
    agent: filterFlags.agent,
    global: Flags.boolean({char: 'g', summary: 'Every directory, not only this one.'}),
    label: filterFlags.label,
    limit: Flags.integer({default: 50, min: 1, summary: 'At most this many rows.'}),
    member: Flags.string({char: 'm', exclusive: ['mine'], helpValue: 'WHO', summary: 'Only sessions WHO runs or owns.'}),
    mine: Flags.boolean({summary: 'Only sessions you run or own.'}),
    state: filterFlags.state,
  }
  static override summary = "The team's recent sessions for this directory (-g: everywhere)."

  async run(): Promise<FeedJson> {
    const {flags} = await this.parse(Feed)
    const {loadConfig, resolveIdentity} = await import('../lib/home/config.js')
    const {feedJson, feedRows, renderFeed} = await import('../lib/views/feed.js')
    const {deviceName, homeDir} = await import('../lib/home/env.js')
    const {teamRows} = await import('../lib/team/index.js')
    const config = await loadConfig(this.env)
    const member = flags.mine ? this.me : flags.member === undefined ? null : resolveIdentity(config, flags.member)
    const {clock, store} = await this.syncedStore()
    const now = clock()
    const cwd = flags.global ? null : path.resolve(process.cwd())
    // Joined to a team store: every machine's sessions.
    const remote = await teamRows(store, this.env, config, deviceName(this.env), (m) => process.stderr.write(`cast: ${m}\n`))
    const filters = {
      agent: flags.agent,
      cwd,
      label: flags.label,
      limit: flags.limit,
      member,
      recencyMs: config.inbox.recencyMs,
      states: flags.state,
    }
    const rows = feedRows(store, this.me, now, filters, remote)
    if (!this.jsonEnabled()) {
      const {terminalWidth} = await import('../lib/views/style.js')
      for (const line of await renderFeed(rows, now, cwd, homeDir(this.env), flags.global, terminalWidth(this.env))) this.log(line)
    }
    return feedJson(rows, this.me, now, cwd)
  }
}
