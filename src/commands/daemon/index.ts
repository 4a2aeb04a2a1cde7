import {Flags} from '@oclif/core'

import {BaseCommand} from '../../lib/cli/base-command.js'
import type {SettleRunner} from '../../core/ingest/classifier.js'
import type {Ingester, SyncStats} from '../../core/ingest/engine.js'
import type {LiveIngester} from '../../core/ingest/live.js'
import type {Store} from '../../core/store/store.js'
import {EXIT} from '../../lib/base/exit-codes.js'
import {oneLine} from '../../core/model/sanitize.js'

/** The daemon's log line: what it says may carry agent text (titles, errors), made visible (sanitize.ts). */
const say = (m: string): boolean => process.stderr.write(`cast daemon: ${oneLine(m)}\n`)

/** `cast daemon --once --json`: what the one pass read, consumed and delivered. */
export type DaemonOnceJson = SyncStats & {
  delivered: number
  hook_events: number
  sessions: number
  timed_transitions: number
  /** With a team joined: whether this pass reached the team store (published, carried out actions); null without one. */
  team_reached: boolean | null
}

export default class Daemon extends BaseCommand {
  static override description = `Holds the ingester lease and keeps the store current: watches every adapter's files
(chokidar, events coalesced per file), consumes the hook spool, re-checks known agent pids
every second so a crash reads dead within 2 s, wakes once at the earliest time-based change
(snooze end, dormant claim TTL, turn-pending TTL) and delivers due scheduled messages.

Only one ingester runs at a time. While it runs, cast sessions and cast sessions -w read
what it writes instead of syncing themselves. Logs go to stderr.`
  static override examples = [
    {command: '<%= config.bin %> <%= command.id %>', description: 'Keep the store current, in the foreground, until stopped (Ctrl-C).'},
    {command: '<%= config.bin %> <%= command.id %> --once', description: 'Sync once and exit (for cron or a login script).'},
    {
      command: '<%= config.bin %> <%= command.id %> --notify',
      description: 'Keep the store current and page you when a session needs you, until stopped.',
    },
    {
      command: '<%= config.bin %> <%= command.id %> --web --team',
      description: "Also serve the whole team's inbox (as cast web --team; teammates' read-only unless you own them), until stopped.",
    },
    '<%= config.bin %> daemon status',
  ]
  static override flags = {
    notify: Flags.boolean({summary: 'Also page you: desktop notifications as cast notify sends them (config notify.*).'}),
    web: Flags.boolean({summary: 'Also serve the web inbox on 127.0.0.1 (as cast web; --web-port sets the port).'}),
    team: Flags.boolean({
      dependsOn: ['web'],
      summary: "With --web: every session of the team, as cast web --team (teammates' read-only unless you own or run them).",
    }),
    'web-behind-proxy': Flags.string({
      dependsOn: ['web'],
      exclusive: ['web-tls-cert'],
      helpValue: 'URL',
      summary: 'With --web: as cast web --behind-proxy URL (a TLS proxy on this machine serves the page at URL).',
    }),
    'web-tls-cert': Flags.string({
      dependsOn: ['web', 'web-tls-key'],
      helpValue: 'FILE',
      summary: 'With --web: as cast web --tls-cert FILE.',
    }),
    'web-tls-key': Flags.string({
      dependsOn: ['web', 'web-tls-cert'],
      helpValue: 'FILE',
      summary: 'With --web: as cast web --tls-key FILE.',
    }),
    'web-port': Flags.integer({default: 4280, helpValue: 'N', max: 65_535, min: 0, summary: 'The port of --web (0 picks a free one).'}),
    once: Flags.boolean({
      summary: 'One pass (files, tmux, spool, timers, schedules, the settle classifier, the team store) and exit.',
    }),
  }
  static override summary = 'Run the ingester in the foreground.'

  async run(): Promise<DaemonOnceJson | void> {
    const {flags} = await this.parse(Daemon)
    const store = await this.openStore()
    const clock = this.clock()
    const {INGESTER_LEASE, leaseIsLive, makeIngester} = await import('../../lib/ingest/ingest.js')
    const {consumeSpool, spoolDir} = await import('../../core/ingest/spool.js')
    const {castHome} = await import('../../lib/home/env.js')
    const {LiveIngester} = await import('../../core/ingest/live.js')
    const home = castHome(this.env)
    const ingester = makeIngester(store, this.env, clock, this.me)
    const current = store.getLease(INGESTER_LEASE)
    // The team store: publish after each pass, carry out teammates' actions.
    let team: Awaited<ReturnType<Daemon['startTeam']>> = null
    let status: {markDirty(): void} | null = null
    const {settleRunnerFor} = await import('../../lib/ingest/classifier.js')
    const settle = await settleRunnerFor(store, this.env, clock, say)
    const hooks = {events: 0, transitions: 0}
    const live = new LiveIngester(store, ingester, {
      clock,
      extraDirs: [spoolDir(home)],
      leaseName: INGESTER_LEASE,
      log: say,
      onChange: () => {
        team?.kick()
        status?.markDirty()
      },
      onExtra: () => {
        const r = consumeSpool(store, ingester, home, clock)
        hooks.events += r.consumed
        hooks.transitions += r.transitions
      },
      settle,
      // Another ingester took the lease over: this one has stopped writing, and the daemon ends.
      onLost: () => {
        process.exitCode = EXIT.REFUSED
        process.emit('SIGTERM')
      },
    })
    if (!live.tryAcquire((l) => !leaseIsLive(l))) {
      this.fail(`Another ingester holds the lease (pid ${current?.pid} on ${current?.host}).`, EXIT.REFUSED, [
        'See it with: cast daemon status',
      ])
    }

    if (flags.once) {
      try {
        return await this.once(store, {ingester, live, settle}, clock, hooks)
      } finally {
        await live.stop()
      }
    }

    // Listen before starting: a Ctrl-C while the watcher, the notifier or the team sync starts
    // stops it cleanly (it used to kill the process with the default action, exit 130).
    const stopped = new Promise<void>((resolve) => {
      process.once('SIGINT', resolve)
      process.once('SIGTERM', resolve)
    })
    await live.start()
    if (live.leaseLost)
      this.fail('Another ingester took the lease over; this daemon stopped.', EXIT.REFUSED, ['See it with: cast daemon status'])
    process.stderr.write(
      `cast daemon: watching ${live.watched} files under ${ingester
        .roots()
        .map((r) => r.root)
        .join(', ')} (pid ${process.pid})\n`,
    )
    const second = await this.everySecond(store, clock, () => team?.kick())
    status = second.keeper
    const paging = flags.notify ? await this.startPaging(store, clock) : null
    team = await this.startTeam(store, clock)
    const web = flags.web ? await this.startWeb(store, clock, flags) : null
    await stopped
    await web?.close()
    await second.stop()
    await team?.stop()
    await paging?.stop()
    await live.stop()
    process.stderr.write('cast daemon: stopped\n')
  }

  /**
   * Every second: scheduled messages that came due, and the status files kept current. And the
   * socket `cast state` declares through (src/lib/state/state-serve.ts): this daemon has the store
   * open; a declaration made there is a change (`changed`, the status files).
   */
  private async everySecond(
    store: Awaited<ReturnType<BaseCommand['openStore']>>,
    clock: () => number,
    changed: () => void,
  ): Promise<{keeper: {markDirty(): void}; stop(): Promise<void>}> {
    const {deliverDue} = await import('../../lib/agents/deliver-hook.js')
    const keeper = await this.statusKeeper(store, clock)
    keeper.tick()
    const {serveState} = await import('../../lib/state/state-serve.js')
    const {castHome} = await import('../../lib/home/env.js')
    const onChange = (): void => (changed(), keeper.markDirty())
    const {answerRead, isReadRequest} = await import('../../lib/cli/read-serve.js')
    const home = castHome(this.env)
    const read = {accepts: isReadRequest, answer: (r: Parameters<typeof answerRead>[2]) => answerRead(store, home, r)}
    const stateSocket = await serveState(store, home, {log: say, me: this.me, onChange, read})
    const {deliverQueued} = await import('../../lib/agents/send-queue.js')
    const timer = setInterval(() => {
      void deliverDue(store, this.env, clock, this.me).catch((error: Error) => say(`delivery failed: ${error.message}`))
      void deliverQueued(store, this.env, clock)
        .then((done) => {
          for (const d of done) if (!d.ok) say(`queued message ${d.id} not delivered: ${d.error}`)
        })
        .catch((error: Error) => say(`queued messages: ${error.message}`))
      try {
        keeper.tick()
      } catch (error) {
        say(`status file not written: ${(error as Error).message}`)
      }
    }, 1000)
    return {
      keeper,
      async stop() {
        clearInterval(timer)
        keeper.stop()
        await stateSocket?.close()
      },
    }
  }

  /** status.json and status.line, kept current for status bars (src/lib/notify/status-keeper.ts). */
  private async statusKeeper(store: Awaited<ReturnType<BaseCommand['openStore']>>, clock: () => number) {
    const {configPath, loadConfig} = await import('../../lib/home/config.js')
    const {statusKeeper} = await import('../../lib/notify/status-keeper.js')
    const config = await loadConfig(this.env)
    return statusKeeper(store, this.env, clock, this.me, config.inbox.recencyMs, configPath(this.env))
  }

  /** --web [--team]: cast web's server beside the ingester (src/lib/web/start.ts); its address on stdout. */
  private async startWeb(
    store: Awaited<ReturnType<BaseCommand['openStore']>>,
    clock: () => number,
    flags: {'web-port': number; team: boolean; 'web-behind-proxy'?: string; 'web-tls-cert'?: string; 'web-tls-key'?: string},
  ) {
    const {startWeb} = await import('../../lib/web/start.js')
    const cert = flags['web-tls-cert']
    const key = flags['web-tls-key']
    const team = flags.team
    const web = await startWeb({
      behindProxy: flags['web-behind-proxy'],
      clock,
      config: this.config,
      env: this.env,
      log: (line) => this.logToStderr(line),
      me: this.me,
      port: flags['web-port'],
      store,
      team,
      tls: cert && key ? {cert, key} : undefined,
    })
    if (flags['web-behind-proxy']) this.log(`The proxy forwards ${web.origin} to http://127.0.0.1:${web.port} (loopback only).`)
    this.log(`cast web${team ? ' --team' : ''} · ${this.me} · ${web.url}`)
    return web.server
  }

  /** With a team joined (cast team join): the outbox publisher and the executor of queued actions. */
  private async startTeam(
    store: Awaited<ReturnType<BaseCommand['openStore']>>,
    clock: () => number,
    quiet = false,
  ): Promise<{kick(): void; stop(): Promise<void>; readonly passes: number} | null> {
    const {loadConfig} = await import('../../lib/home/config.js')
    const {deviceName} = await import('../../lib/home/env.js')
    const {startTeamSync} = await import('../../lib/team/index.js')
    const {castRunner} = await import('../../lib/verbs/team-runner.js')
    const log = say
    const run = castRunner(this.env)
    const team = await startTeamSync(store, this.env, await loadConfig(this.env), {
      clock,
      device: deviceName(this.env),
      log,
      me: this.me,
      run,
    })
    if (team && !quiet) log(`publishing to the team store as ${deviceName(this.env)}`)
    return team
  }

  /** --notify: a notifier following the log this daemon writes (see cast notify). */
  private async startPaging(store: Awaited<ReturnType<BaseCommand['openStore']>>, clock: () => number): Promise<{stop(): Promise<void>}> {
    const {loadConfig} = await import('../../lib/home/config.js')
    const {notifierConfig, describeSent} = await import('../../lib/notify/run.js')
    const {resolveBackends} = await import('../../lib/notify/backends.js')
    const {startNotifying} = await import('../../lib/notify/notifier.js')
    const config = await loadConfig(this.env)
    const nc = notifierConfig(config)
    const backends = resolveBackends(nc, this.env)
    const paging = await startNotifying({
      backends,
      clock,
      config: nc,
      env: this.env,
      ingest: false,
      me: this.me,
      onSent: (s) => say(`notified: ${describeSent(s, true)}`),
      recencyMs: config.inbox.recencyMs,
      store,
    })
    // Said once the notifier reads the log: what changes from here on pages.
    say(`paging ${this.me} via ${backends.join(', ')}`)
    return paging
  }

  /**
   * One pass (`--once`), the daemon's own: the live ingester's catch-up (sync, the tmux sweep,
   * the hook spool, the settle classifier's poke), the time rules, due scheduled messages; then the
   * settle classifier's verdicts are waited for and, with a team joined, one team pass publishes
   * and carries out teammates' actions. The lease is let go by live.stop().
   */
  private async once(
    store: Store,
    o: {ingester: Ingester; live: LiveIngester; settle: SettleRunner | undefined},
    clock: () => number,
    hooks: {readonly events: number; readonly transitions: number},
  ): Promise<DaemonOnceJson> {
    const {deliverDue} = await import('../../lib/agents/deliver-hook.js')
    const stats = o.live.catchUp()
    if (stats === null)
      this.fail('Another ingester took the lease over; this pass stopped.', EXIT.REFUSED, ['See it with: cast daemon status'])
    const ticked = o.ingester.tick()
    const delivered = await deliverDue(store, this.env, clock, this.me)
    const {deliverQueued} = await import('../../lib/agents/send-queue.js')
    await deliverQueued(store, this.env, clock)
    await o.settle?.drainNow()
    const team = await this.startTeam(store, clock, true)
    await team?.stop()
    const sessions = store.countSessions()
    const result: DaemonOnceJson = {
      ...stats,
      delivered,
      hook_events: hooks.events,
      sessions,
      team_reached: team === null ? null : team.passes > 0,
      timed_transitions: ticked,
    }
    if (!this.jsonEnabled()) {
      const teamNote =
        team === null ? '' : team.passes > 0 ? '; published to the team store' : '; the team store was not reached (the outbox keeps it)'
      this.log(
        `synced ${stats.files} files (${stats.read} read, ${(stats.bytes / 1e6).toFixed(1)} MB, ${stats.lines} lines, ${stats.parseErrors} malformed) in ${stats.ms.toFixed(0)} ms; ` +
          `${stats.transitions + ticked + hooks.transitions} transitions, ${hooks.events} hook events, ${delivered} scheduled messages delivered, ${sessions} sessions${teamNote}`,
      )
    }

    return result
  }
}
