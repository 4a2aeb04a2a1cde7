import {Args, Flags} from '@oclif/core'

import {WORK_STATES} from '../core/model/types.js'
import type {SessionRow} from '../core/store/store.js'
import {BaseCommand} from '../lib/cli/base-command.js'
import {EXIT} from '../lib/base/exit-codes.js'
import {durationFlag} from '../lib/cli/time-flags.js'
import type {SessionJson} from '../lib/views/views.js'

/** `cast wait --json`: whether the wanted states were met, and the sessions as they are. */
export interface WaitJson {
  met: boolean
  sessions: SessionJson[]
}

export default class Wait extends BaseCommand {
  static override args = {
    session: Args.string({description: 'Session ids or prefixes (several allowed; none with --any: every session in your inbox).'}),
  }
  static override description = `Blocks until every named session (or any, with --any) is in one of the given states, then
exits 0, printing each such session's short id, state:reason and title (with --json, the
sessions' lines). With --any and no session, it waits for any session in your inbox (what
cast sessions lists) and prints those in the state, most urgent first. Exits 124 when
--timeout passes first.
It reads the store, so it keeps waiting across an ingester restart; with no ingester running it
syncs the agents' files itself.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> ckq7fgv --until needs_input,done',
    {
      command: '<%= config.bin %> <%= command.id %> jhgmszz ckq7fgv --until done --any --timeout 30m --json',
      description: 'The first of two to finish.',
    },
    {
      command: '<%= config.bin %> <%= command.id %> --until needs_input --any',
      description: 'The next time any session in your inbox waits on you (an orchestrator loop).',
    },
    {
      command: '<%= config.bin %> <%= command.id %> jhgmszz --until done --timeout 2s',
      description: 'Give up after 2s when it is still working (exit 124).',
    },
  ]
  static override flags = {
    any: Flags.boolean({summary: 'Return as soon as one of the sessions is in a wanted state.'}),
    timeout: durationFlag({summary: 'Give up after this long (e.g. 90s, 30m, 2h): exit 124.'}),
    until: Flags.string({
      multiple: true,
      required: true,
      summary: 'Wanted states, comma-separated or repeated: working, needs_input (or needs-input), done, dormant, idle.',
    }),
  }
  static override strict = false
  static override summary = 'Wait until sessions reach a state.'

  async run(): Promise<WaitJson> {
    const {argv, flags} = await this.parse(Wait)
    const {normaliseState, splitList} = await import('../lib/cli/flags.js')
    const wanted: string[] = []
    for (const s of splitList(flags.until)) {
      const state = normaliseState(s)
      if (state === null)
        this.fail(`--until: "${s}" is not a state (one of ${WORK_STATES.join(', ')}; needs-input and needs_input alike).`, EXIT.USAGE)
      wanted.push(state)
    }

    const named = splitList(argv)
    if (named.length === 0 && !flags.any)
      this.fail('Name the sessions to wait for, or wait for any session in your inbox with --any.', EXIT.USAGE, [
        `cast wait --until ${wanted.join(',')} --any`,
      ])
    const {clock, store} = await this.syncedStore()
    const {resolveSessions} = await import('../lib/base/resolve.js')
    const {sessionJson} = await import('../lib/views/views.js')
    const ids = named.length > 0 ? resolveSessions(store, named) : null
    const inbox = ids === null ? await this.inboxRows(wanted) : null
    const deadline = flags.timeout === undefined ? null : Date.now() + flags.timeout
    for (;;) {
      const rows = ids === null ? inbox!(clock()) : store.loadSessions(ids)
      const met = rows.filter((r) => wanted.includes(r.state))
      if (flags.any ? met.length > 0 : met.length === rows.length) {
        const now = clock()
        const sessions = (flags.any ? met : rows).map((r) => sessionJson(r, this.me, now))
        if (!this.jsonEnabled()) for (const s of sessions) this.log(`${s.short_id}  ${s.state}:${s.reason}  ${s.title ?? ''}`)
        return {met: true, sessions}
      }

      if (deadline !== null && Date.now() >= deadline) {
        const now = clock()
        const sessions = rows.map((r) => sessionJson(r, this.me, now))
        if (!this.jsonEnabled())
          process.stderr.write(`cast: timed out waiting for ${ids === null ? 'any session to be ' : ''}${wanted.join(' or ')}\n`)
        process.exitCode = EXIT.TIMEOUT
        return {met: false, sessions}
      }

      await new Promise((r) => setTimeout(r, 250))
      await this.sync(store, clock)
    }
  }

  /** With --any and no session: the rows of my inbox (as cast sessions lists them, in its order) in a wanted state. */
  private async inboxRows(wanted: readonly string[]): Promise<(now: number) => SessionRow[]> {
    const {loadConfig} = await import('../lib/home/config.js')
    const {inboxListing} = await import('../lib/views/stream-listing.js')
    const recencyMs = (await loadConfig(this.env)).inbox.recencyMs
    const store = await this.openStore()
    return (now) => (inboxListing(store, this.me, now, {recencyMs}, [])?.rows ?? []).filter((r) => wanted.includes(r.state))
  }
}
