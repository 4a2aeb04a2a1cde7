import {Flags} from '@oclif/core'

import {BaseCommand} from '../lib/cli/base-command.js'

export default class Notify extends BaseCommand {
  static override description = `Pages you: one notification the moment a session of yours needs you. It follows the
transitions log as it grows (running the ingester itself when no cast daemon holds the lease)
and notifies on every transition into a demand: a permission prompt ("<agent> is waiting for
approval"), a question ("<agent> asked a question"), an error ("<agent> is blocked by an error"),
a decision card, a bare needs input. The notification carries the session title and the ask.

A burst (asks less than the group window apart, 150 ms by default) is one notification; it
names a reason only when every member shares it ("3 agents are waiting for approval"), else
"3 agents need you". Each ask pages once per session, reason and turn. Never for subagents,
stashed, hidden, snoozed, dismissed or killed sessions, nor sessions owned by others. A
declared done is a soft notification (notify.done: soft | normal | off). When nothing louder
is pending, a working session silent for 10 minutes gives the quiet band's sentence ("2 agents
have gone quiet"; notify.quiet: false turns it off).

Backends (config notify.backends, or --backend): freedesktop (D-Bus, via notify-send or gdbus),
macos (osascript), tmux (display-message on every attached client), bell, command (notify.command,
an argv with {summary} {body} {kind} {urgency} {sessions}; the notification as JSON on stdin),
stdout (print only). "auto" (the default) picks the desktop, plus tmux inside tmux, else the bell.

Each notification is also printed (NDJSON with --json). It resumes where it stopped: the
cursor and the dedupe keys are kept in the store per identity (--since SEQ replays from there).
cast daemon --notify does the same inside the daemon.`
  static override examples = [
    {command: '<%= config.bin %> <%= command.id %>', description: 'Desktop notifications until stopped (Ctrl-C).'},
    {
      command: '<%= config.bin %> <%= command.id %> --backend tmux --backend bell',
      description: 'Page inside tmux, and ring the terminal, until stopped.',
    },
    {
      command: '<%= config.bin %> <%= command.id %> --json --backend stdout',
      description: 'One JSON line per notification, nothing on the desktop, until stopped.',
    },
    {command: '<%= config.bin %> daemon --notify', description: 'The daemon pages you too, until stopped.'},
  ]
  static override flags = {
    backend: Flags.string({
      multiple: true,
      options: ['auto', 'freedesktop', 'macos', 'tmux', 'bell', 'command', 'stdout', 'push', 'ntfy'],
      delimiter: ',',
      helpValue: 'BACKEND',
      summary:
        'Where notifications go: auto, freedesktop, macos, tmux, bell, command, stdout, push (paired devices) or ntfy (repeat it or use commas); overrides notify.backends.',
    }),
    since: Flags.integer({
      helpValue: 'SEQ',
      min: 0,
      summary: 'Replay the log after this seq (what is still pending pages), then follow it.',
    }),
  }
  static override summary = 'Desktop notifications when a session needs you.'

  async run(): Promise<void> {
    const {flags} = await this.parse(Notify)
    const store = await this.openStore()
    const clock = this.clock()
    const {loadConfig} = await import('../lib/home/config.js')
    const {notifierConfig, describeSent} = await import('../lib/notify/run.js')
    const {resolveBackends} = await import('../lib/notify/backends.js')
    const {startNotifying} = await import('../lib/notify/notifier.js')
    const {oneLine} = await import('../core/model/sanitize.js')
    const config = await loadConfig(this.env)
    const nc = notifierConfig(config, flags.backend)
    const backends = resolveBackends(nc, this.env)
    const json = this.jsonEnabled()
    if (!json) process.stderr.write(`cast notify: paging ${this.me} via ${backends.join(', ')}; Ctrl-C stops\n`)
    // Listen before starting: a Ctrl-C while the notifier starts stops it cleanly (not exit 130).
    const stopped = new Promise<void>((resolve) => {
      process.once('SIGINT', resolve)
      process.once('SIGTERM', resolve)
    })
    const running = await startNotifying({
      backends,
      clock,
      config: nc,
      env: this.env,
      ingest: true,
      log: (m) => process.stderr.write(`cast notify: ${oneLine(m)}\n`),
      me: this.me,
      onSent: (s) => process.stdout.write((json ? JSON.stringify(describeSent(s)) : describeSent(s, true)) + '\n'),
      recencyMs: config.inbox.recencyMs,
      since: flags.since,
      store,
    })
    await stopped
    setTimeout(() => process.exit(0), 5000).unref()
    await running.stop()
  }
}
