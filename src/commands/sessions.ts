import {Flags} from '@oclif/core'

import {BaseCommand} from '../lib/cli/base-command.js'
import {type Column, COLUMNS, parseColumns} from '../lib/views/holds-view.js'
import {EXIT} from '../lib/base/exit-codes.js'
import {AGENT_SPELLING, filterFlags} from '../lib/cli/flags.js'
import type {Listing} from '../lib/views/views.js'
import {teamFamilies} from '../core/store/families.js'

export default class Sessions extends BaseCommand {
  static override description = `Every agent session on the machine, grouped by who acts next: Questions, Pinned, New,
Needs Input, Done, Working, Dormant, Idle, then the collapsed Snoozed, Stashed and Killed.

Before reading, cast brings its store up to date: when no ingester (cast daemon, or another
cast sessions -w) holds the lease, it does one incremental sync of the agents' files itself.

With -w it prints nothing until something changes, then one line per transition (NDJSON with
--json), flushed at once. --since SEQ replays the log from SEQ and continues; --snapshot first
prints each matching session once.

On a terminal, a listing taller than the window goes through a pager, as git's does: CAST_PAGER,
else PAGER, else less -FRX. CAST_PAGER= (empty) or cat, or --no-pager, turn it off; never in a
pipe or with --json.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {command: '<%= config.bin %> <%= command.id %> --state needs_input --json', description: 'Sessions waiting on you, as JSON.'},
    {
      command: `<%= config.bin %> <%= command.id %> --state done,idle --agent ${AGENT_SPELLING}`,
      description: 'A comma list and any spelling of the agent.',
    },
    {
      command: '<%= config.bin %> <%= command.id %> -w --json --label fleet',
      description: 'Stream transitions of the sessions labelled fleet, until stopped.',
    },
    {
      command: '<%= config.bin %> <%= command.id %> -w --json --since 42',
      description: 'Resume a stream after seq 42 (nothing lost, nothing twice), until stopped.',
    },
  ]
  static override flags = {
    ...filterFlags,
    pager: Flags.boolean({
      allowNo: true,
      summary: 'Page long output on a terminal through CAST_PAGER, PAGER or less -FRX (default); --no-pager prints it straight.',
    }),
    fleet: Flags.boolean({
      summary:
        'Every machine of "cast hosts": each host\'s own cast sessions over ssh, in the same sections, each row naming its host (docs/fleet.md).',
    }),
    columns: Flags.string({
      helpValue: 'LIST',
      multiple: true,
      summary: `Add a line under each row with what the session holds (comma list): ${COLUMNS.join(', ')}.`,
    }),
    since: Flags.integer({min: 0, summary: 'With -w: replay transitions after this seq, then continue live.', helpValue: 'SEQ'}),
    snapshot: Flags.boolean({summary: 'With -w: first print every matching session once (event "snapshot").'}),
    watch: Flags.boolean({char: 'w', summary: 'Stream one line per transition until interrupted.'}),
  }
  static override summary = 'List agent sessions by who acts next.'

  async run(): Promise<unknown> {
    const parsed = await this.parse(Sessions)
    const flags = {...parsed.flags, quiet: parsed.flags['only-quiet']}
    if (flags.watch) {
      // --team with a team store joined: the team's stream from the server.
      if (flags.team && (await this.watchTeam(flags))) return
      if (flags.fleet) await this.watchFleet(flags)
      const {watchSessions} = await import('../lib/views/watch.js')
      const {castRunner} = await import('../lib/verbs/team-runner.js')
      await watchSessions(flags, this.jsonEnabled(), process.env, castRunner)
      return
    }

    if (flags.since !== undefined || flags.snapshot) this.fail('--since and --snapshot only apply with -w.', EXIT.USAGE)
    if (flags.fleet) return this.fleet(flags)
    const store = await this.openStore({forReading: true})
    const clock = this.clock()
    // The listing is shared with bin/run.js's fast path (src/lib/cli/sessions-fast.ts): same bytes.
    const {listSessions} = await import('../lib/views/sessions-list.js')
    let columns: Column[] | undefined
    try {
      columns = flags.columns === undefined ? undefined : parseColumns(flags.columns)
    } catch (error) {
      this.fail((error as Error).message, EXIT.USAGE)
    }
    return listSessions(
      store,
      this.env,
      clock,
      this.me,
      {...flags, columns},
      {
        json: this.jsonEnabled(),
        line: (text) => this.log(text),
        styled: (text) => this.logStyled(text),
        write: (chunk) => process.stdout.write(chunk),
      },
    )
  }

  /** `--fleet`: this machine's listing and each host's (src/lib/fleet/fleet.ts), fetched at once. */
  private async fleet(flags: {agent?: string[]; all?: boolean; label?: string[]; quiet?: boolean; state?: string[]}): Promise<unknown> {
    const {loadConfig} = await import('../lib/home/config.js')
    const {fetchFleet, mergeFleet} = await import('../lib/fleet/fleet.js')
    const config = await loadConfig(this.env)
    if ((config.hosts ?? []).length === 0)
      this.fail('No hosts for --fleet: "cast hosts add NAME [user@]host[:port]" adds one.', EXIT.NOT_FOUND)
    const remoteFlags = [
      ...(flags.all ? ['--all'] : []),
      ...(flags.quiet ? ['--only-quiet'] : []),
      ...(flags.state?.length ? [`--state=${flags.state.join(',')}`] : []),
      ...(flags.agent?.length ? [`--agent=${flags.agent.join(',')}`] : []),
      ...(flags.label ?? []).map((l) => `--label=${l}`),
    ]
    const clock = this.clock()
    // The hosts' ssh children start first and run while this machine's listing is built.
    const remote = fetchFleet(config, this.env, remoteFlags, clock)
    const store = await this.openStore({forReading: true})
    const {listSessions} = await import('../lib/views/sessions-list.js')
    let streamed = ''
    const local = await listSessions(store, this.env, clock, this.me, {...flags, team: false} as never, {
      json: true,
      line: () => {},
      styled: () => {},
      write: (chunk) => (streamed += chunk),
    })
    const merged = mergeFleet(local ?? (JSON.parse(streamed) as Listing), await remote)
    if (this.jsonEnabled()) return merged
    const {renderFleet} = await import('../lib/fleet/render.js')
    const {terminalStyle} = await import('../lib/views/style.js')
    const {homeDir} = await import('../lib/home/env.js')
    this.logStyled(renderFleet(merged, clock(), homeDir(this.env), await terminalStyle()))
    return merged
  }

  /** `-w --json --fleet`: each host's own stream over ssh beside this machine's (src/lib/fleet/watch.ts). */
  private async watchFleet(flags: {json?: boolean; state?: string[]; agent?: string[]; label?: string[]}): Promise<void> {
    if (!this.jsonEnabled()) this.fail('-w --fleet streams JSON only: add --json.', EXIT.USAGE)
    const {loadConfig} = await import('../lib/home/config.js')
    const config = await loadConfig(this.env)
    const {watchHost} = await import('../lib/fleet/watch.js')
    const signal = new AbortController()
    process.once('SIGTERM', () => signal.abort())
    process.once('SIGINT', () => signal.abort())
    const remoteFlags = [
      ...(flags.state?.length ? [`--state=${flags.state.join(',')}`] : []),
      ...(flags.agent?.length ? [`--agent=${flags.agent.join(',')}`] : []),
      ...(flags.label ?? []).map((l) => `--label=${l}`),
    ]
    for (const h of config.hosts ?? []) {
      void watchHost(h, this.env, {
        connectTimeoutMs: Math.max(5000, h.budgetMs ?? config.fleet?.budgetMs ?? 1500),
        flags: remoteFlags,
        log: (m) => process.stderr.write(`cast: ${m}\n`),
        signal: signal.signal,
        write: (line) => process.stdout.write(line),
      })
    }
  }

  /** `--team -w` on a machine that joined a team store; false when it has not (the local stream then). */
  private async watchTeam(flags: {since?: number; state?: string[]; agent?: string[]}): Promise<boolean> {
    const store = await this.openStore()
    const {loadConfig} = await import('../lib/home/config.js')
    const {teamContext} = await import('../lib/team/index.js')
    const ctx = teamContext(store, this.env, await loadConfig(this.env))
    if (!ctx) return false
    const {watchTeam} = await teamFamilies.watch()
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
