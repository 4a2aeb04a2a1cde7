import {Flags} from '@oclif/core'
import path from 'node:path'

import {BaseCommand} from '../lib/base-command.js'
import {filterFlags} from '../lib/flags.js'
import type {SessionJson} from '../lib/views.js'

export interface FeedJson {
  me: string
  generated_at: string
  /** The directory the feed covers; null with -g. */
  cwd: string | null
  sessions: (SessionJson & {who: string[]})[]
}

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
    const store = await this.openStore()
    const clock = this.clock()
    const {syncBeforeRead} = await import('../lib/ingest.js')
    const {loadConfig, resolveIdentity} = await import('../lib/config.js')
    const {sessionJson, titleOf, tildify} = await import('../lib/views.js')
    const {formatAge} = await import('../core/model/durations.js')
    const {isOwnedBy, sameIdentity} = await import('../core/model/ownership.js')
    const {shortId} = await import('../core/model/ids.js')
    const {homeDir} = await import('../lib/env.js')
    const config = await loadConfig(this.env)
    const member = flags.mine ? this.me : flags.member === undefined ? null : resolveIdentity(config, flags.member)
    syncBeforeRead(store, this.env, clock, this.me)
    const now = clock()
    const cwd = flags.global ? null : path.resolve(process.cwd())
    const under = (dir: string | null): boolean => cwd === null || (dir !== null && (dir === cwd || dir.startsWith(cwd.endsWith('/') ? cwd : cwd + '/')))
    const who = (owners: readonly string[], runner: string | null): string[] => (owners.length > 0 ? [...owners] : runner ? [runner] : [])
    // Joined to a team store: every machine's sessions (issue 17).
    const {teamRows} = await import('../core/store/team/index.js')
    const {deviceName} = await import('../lib/env.js')
    const remote = await teamRows(store, this.env, config, deviceName(this.env), (m) => process.stderr.write(`cast: ${m}\n`))
    const keep = (r: (typeof remote)[number]): boolean => {
      if (r.parentId !== null) return false
      const at = r.facts.lastActivityAt ?? r.firstSeenAt
      if (now - at > config.inbox.recencyMs) return false
      if (!under(r.facts.cwd)) return false
      if (flags.agent && !flags.agent.includes(r.agent)) return false
      if (flags.state && flags.state.length > 0 && !flags.state.includes(r.state)) return false
      if (flags.label && !flags.label.includes(r.labels[this.me] ?? '')) return false
      if (member !== null && !isOwnedBy(r.records.owners, member) && !(r.runner !== null && sameIdentity(r.runner, member))) return false
      return true
    }

    // Only rows inside the recency window are loaded, a chunk at a time, newest first, until
    // --limit of them pass the filters (issue 16: the store's size does not grow the read).
    const {recentTopLevelIds} = await import('../core/store/listing.js')
    const local: typeof remote = []
    let chunk: string[] = []
    const take = (): void => {
      for (const r of store.loadSessions(chunk)) if (local.length < flags.limit && keep(r)) local.push(r)
      chunk = []
    }

    for (const id of recentTopLevelIds(store, now - config.inbox.recencyMs)) {
      chunk.push(id)
      if (chunk.length >= 200) take()
      if (local.length >= flags.limit) break
    }

    if (local.length < flags.limit) take()
    const rows = [...local, ...remote.filter((r) => keep(r))]
      .sort((a, b) => (b.facts.lastActivityAt ?? b.firstSeenAt) - (a.facts.lastActivityAt ?? a.firstSeenAt))
      .slice(0, flags.limit)
    const result: FeedJson = {
      cwd,
      generated_at: new Date(now).toISOString(),
      me: this.me,
      sessions: rows.map((r) => ({...sessionJson(r, this.me, now), who: who(r.records.owners, r.runner)})),
    }
    if (!this.jsonEnabled()) {
      const scope = cwd === null ? 'every directory' : tildify(cwd, homeDir(this.env))
      if (rows.length === 0) {
        this.log(`No recent sessions in ${scope}${flags.global ? '' : ' (-g: every directory)'}.`)
        return result
      }

      const {default: Table} = await import('cli-table3')
      const head = ['ID', 'STATE', 'TITLE', 'WHO', 'ACTIVE', 'AGENT']
      if (cwd === null) head.push('CWD')
      const table = new Table({chars: {'left-mid': '', mid: '', 'mid-mid': '', 'right-mid': ''}, head, style: {border: [], head: []}, wordWrap: false})
      for (const r of rows) {
        const title = titleOf(r) ?? '(untitled)'
        const line = [
          shortId(r.id),
          `${r.state}:${r.reason}`,
          title.length > 48 ? `${title.slice(0, 47)}…` : title,
          who(r.records.owners, r.runner).join(', ') || '?',
          r.facts.lastActivityAt === null ? 'never' : formatAge(now - r.facts.lastActivityAt),
          r.agent,
        ]
        if (cwd === null) line.push(tildify(r.facts.cwd, homeDir(this.env)))
        table.push(line)
      }

      this.log(`cast feed · ${scope} · ${rows.length} session${rows.length === 1 ? '' : 's'}`)
      this.log(table.toString())
    }

    return result
  }
}
