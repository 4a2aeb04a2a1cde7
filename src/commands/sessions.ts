import {Flags} from '@oclif/core'

import type {SyncStats} from '../core/ingest/engine.js'
import type {SessionRow, Store} from '../core/store/store.js'
import {BaseCommand} from '../lib/base-command.js'
import type {Env} from '../lib/env.js'
import {EXIT} from '../lib/exit-codes.js'
import {AGENT_SPELLING, filterFlags} from '../lib/flags.js'
import type {SyncBeforeReadOptions} from '../lib/ingest.js'
import type {Listing} from '../lib/views.js'

export default class Sessions extends BaseCommand {
  static override description = `Every agent session on the machine, grouped by who acts next: Questions, Pinned, New,
Needs Input, Done, Working, Dormant, Idle, then the collapsed Snoozed, Stashed and Killed.

Before reading, cast brings its store up to date: when no ingester (cast daemon, or another
cast sessions -w) holds the lease, it does one incremental sync of the agents' files itself.

With -w it prints nothing until something changes, then one line per transition (NDJSON with
--json), flushed at once. --since SEQ replays the log from SEQ and continues; --snapshot first
prints each matching session once.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {command: '<%= config.bin %> <%= command.id %> --state needs_input --json', description: 'Sessions waiting on you, as JSON.'},
    {command: `<%= config.bin %> <%= command.id %> --state done,idle --agent ${AGENT_SPELLING}`, description: 'A comma list and any spelling of the agent.'},
    {command: '<%= config.bin %> <%= command.id %> -w --json --label fleet', description: 'Stream transitions of the sessions labelled fleet, until stopped.'},
    {command: '<%= config.bin %> <%= command.id %> -w --json --since 42', description: 'Resume a stream after seq 42 (nothing lost, nothing twice), until stopped.'},
  ]
  static override flags = {
    ...filterFlags,
    since: Flags.integer({min: 0, summary: 'With -w: replay transitions after this seq, then continue live.', helpValue: 'SEQ'}),
    snapshot: Flags.boolean({summary: 'With -w: first print every matching session once (event "snapshot").'}),
    watch: Flags.boolean({char: 'w', summary: 'Stream one line per transition until interrupted.'}),
  }
  static override summary = 'List agent sessions by who acts next.'

  async run(): Promise<Listing | void> {
    const {flags} = await this.parse(Sessions)
    if (flags.watch) {
      // --team with a team store joined: the team's stream from the server (issue 17).
      if (flags.team && (await this.watchTeam(flags))) return
      const {watchSessions} = await import('../lib/watch.js')
      await watchSessions(flags, this.jsonEnabled())
      return
    }

    if (flags.since !== undefined || flags.snapshot) this.fail('--since and --snapshot only apply with -w.', EXIT.USAGE)
    const store = await this.openStore()
    const clock = this.clock()
    const {loadConfig} = await import('../lib/config.js')
    const {buildListing} = await import('../lib/views.js')
    const config = await loadConfig(this.env)
    const synced = await syncForListing(store, this.env, clock, this.me, flags.all ? {progress: progressLine} : {recentFirst: {recencyMs: config.inbox.recencyMs}})
    const now = clock()
    // Joined to a team store: teammates' sessions too (the inbox keeps those I own or run).
    const {teamRows} = await import('../core/store/team/index.js')
    const {deviceName} = await import('../lib/env.js')
    const remote = await teamRows(store, this.env, config, deviceName(this.env), (m) => process.stderr.write(`cast: ${m}\n`))
    const filters = {
      agent: flags.agent,
      all: flags.all,
      cwd: flags.cwd,
      label: flags.label,
      quiet: flags.quiet,
      recencyMs: config.inbox.recencyMs,
      states: flags.state,
      team: flags.team,
    }
    if (flags.all && this.jsonEnabled() && !flags.team && remote.length === 0) {
      // The big list streams (issue 16 point 4): the same bytes, a chunk of rows at a time.
      const {streamListing} = await import('../lib/stream-listing.js')
      streamListing(store, this.me, now, filters, (chunk) => process.stdout.write(chunk))
      return
    }

    // The default inbox reads only the rows that can be in it (issue 16); filters read them all.
    const {inboxListing} = await import('../lib/stream-listing.js')
    const {listing, rows} = inboxListing(store, this.me, now, filters, remote) ?? buildListing([...store.loadSessions(), ...remote], this.me, now, filters)
    if (!this.jsonEnabled()) {
      this.logStyled(await renderSessions(listing, rows, now, this.env, flags.team))
      const roots = async (): Promise<{agent: string; root: string}[]> => {
        const {makeIngester} = await import('../lib/ingest.js')
        return makeIngester(store, this.env, clock, this.me).roots()
      }

      for (const line of await sessionsFooter(synced, () => store.countSessions(), rows.length, roots)) this.log(line)
    }

    return listing
  }

  /** `--team -w` on a machine that joined a team store; false when it has not (the local stream then). */
  private async watchTeam(flags: {since?: number; state?: string[]; agent?: string[]}): Promise<boolean> {
    const store = await this.openStore()
    const {loadConfig} = await import('../lib/config.js')
    const {teamContext} = await import('../core/store/team/index.js')
    const ctx = teamContext(store, this.env, await loadConfig(this.env))
    if (!ctx) return false
    const {watchTeam} = await import('../core/store/team/watch.js')
    await watchTeam({
      agent: flags.agent,
      json: this.jsonEnabled(),
      log: (m) => process.stderr.write(`cast: ${m}\n`),
      since: flags.since,
      states: flags.state,
      url: ctx.target.url,
      write: (line) => process.stdout.write(line),
    })
    return true
  }
}

/** `--all` waits for every file: a progress line on stderr past a second (rewritten in place on a TTY). */
function progressLine(line: string, final: boolean): void {
  process.stderr.write(process.stderr.isTTY && !final ? `\r${line}\u001B[K` : `${process.stderr.isTTY ? '\r' : ''}${line}\n`)
}

/**
 * Bring the store up to date for a listing. CAST_NOW is a test clock: with a live ingester on
 * real time, read only (no sweep at a fake time). Recent first (issue 16): the inbox reads the
 * files inside its window and leaves the older ones to a background pass.
 */
export async function syncForListing(store: Store, env: Env, clock: () => number, me: string, options: SyncBeforeReadOptions): Promise<SyncStats | null> {
  const {INGESTER_LEASE, leaseIsLive, syncBeforeRead} = await import('../lib/ingest.js')
  if (env.CAST_NOW?.trim() && leaseIsLive(store.getLease(INGESTER_LEASE))) return null
  return syncBeforeRead(store, env, clock, me, options)
}

/** The human listing `cast sessions` prints: the tally and its sections, styled and fitted to the terminal. */
export async function renderSessions(listing: Listing, rows: SessionRow[], now: number, env: Env, team: boolean): Promise<string> {
  const {renderListing} = await import('../lib/views.js')
  const {fitLines, terminalStyle, terminalWidth} = await import('../lib/style.js')
  const {homeDir} = await import('../lib/env.js')
  const style = await terminalStyle()
  return fitLines(renderListing(listing, rows, now, homeDir(env), style, team ? 'cast sessions · team' : 'cast sessions'), terminalWidth(env))
}

/**
 * The lines under the listing: older files still being read in the background; or, with no
 * session at all, where cast looked; or that the filters left nothing.
 */
export async function sessionsFooter(synced: SyncStats | null, sessions: () => number, shown: number, roots: () => Promise<{agent: string; root: string}[]>): Promise<string[]> {
  if (synced && synced.deferred > 0) {
    return ['', `Reading ${synced.deferred.toLocaleString('en-US')} older files (${Math.round(synced.deferredBytes / 2 ** 20)} MB) in the background: "cast sessions --all" waits for them.`]
  }

  if (sessions() === 0) {
    return ['', 'No agent sessions found. cast looked in:', ...(await roots()).map((r) => `  ${r.root}  (${r.agent})`), 'Try "cast demo" to see the inbox over a bundled example.']
  }

  return shown === 0 ? ['', 'Nothing in your inbox under these filters. "cast sessions --all" lists everything.'] : []
}
