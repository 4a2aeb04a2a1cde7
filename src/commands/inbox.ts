import {BaseCommand} from '../lib/cli/base-command.js'
import {EXIT} from '../lib/base/exit-codes.js'

export default class Inbox extends BaseCommand {
  static override description = `A full-screen, live view of the same sections and tally as cast sessions, that you triage
from the keyboard. It follows the transitions log as it grows (running the ingester itself when
no cast daemon holds the lease): a session that starts waiting moves into view at once.
Works in any terminal, over SSH and inside tmux; readable without colour (NO_COLOR).

Keys: j/k or arrows move · Enter jumps to the agent's tmux pane (switch-client; outside tmux
it attaches until you detach) · a / d approve / deny the open permission prompt · r reply (types
into the agent as its next turn, never into an open dialog) · s snooze (30m, 2h, "tomorrow
9am") · x stash · p pin/unpin · m mark (done, dormant, needs input, unread) · K kill (asks
first) · u undo · n / N next waiting session in this project / anywhere · / filter · ? help ·
q quit. Each verb is the cast command of the same name, with the same rules and undo history.`
  static override examples = [
    {command: '<%= config.bin %> <%= command.id %>', description: 'The interactive inbox: j/k move, a approves, r replies, q quits.'},
    {command: 'NO_COLOR=1 <%= config.bin %> <%= command.id %>', description: 'Without colour (interactive, q quits).'},
  ]
  static override summary = 'A live keyboard inbox: triage sessions without leaving the terminal.'

  async run(): Promise<void> {
    // --json is accepted so that its refusal comes in the one error envelope (docs/contract.md).
    if (this.jsonEnabled())
      this.fail('cast inbox is interactive and has no JSON output; for scripts use cast sessions -w --json.', EXIT.USAGE)
    if (!process.stdin.isTTY || !process.stdout.isTTY)
      this.fail('cast inbox needs a terminal (stdin and stdout a TTY); for scripts use cast sessions -w --json.', EXIT.USAGE)
    const store = await this.openStore()
    const {loadConfig} = await import('../lib/home/config.js')
    const {homeDir} = await import('../lib/home/env.js')
    const {runInbox} = await import('../lib/inbox/app.js')
    const config = await loadConfig(this.env)
    await runInbox({
      clock: this.clock(),
      env: this.env,
      home: homeDir(this.env),
      me: this.me,
      recencyMs: config.inbox.recencyMs,
      self: [process.execPath, process.argv[1]!],
      store,
    })
  }
}
