import {Args, Flags} from '@oclif/core'

import {WORK_STATES} from '../core/model/types.js'
import {resumeExamples} from '../lib/agents/agent-commands.js'
import {EXIT} from '../lib/base/exit-codes.js'
import {teamFlags} from '../lib/cli/flags.js'
import {TriageCommand} from '../lib/triage/triage.js'
import {verb} from '../core/model/verbs.js'

export type {QueuedJson, SendJson} from '../lib/verbs/send.js'

export default class Send extends TriageCommand {
  static override args = {
    session: Args.string({description: 'Session id, native id, or a unique prefix (4+ characters).', required: true}),
    message: Args.string({description: 'The message; "-" reads it from stdin.', required: true}),
  }
  static override description = `Puts a message into a session as its next turn, as if typed at its prompt.

When the agent runs in a tmux pane (found by walking its process's ancestry to a pane), the message is typed there as literal keys, then Enter; several lines go in as one bracketed paste. When it has no live process, the session is resumed headless with the agent's own CLI (${resumeExamples().join(', ')}; see "agents" in the config), detached, its output in $CAST_HOME/runs/. A live agent outside tmux cannot be typed into: that is an error.

--if checks the state at the moment of sending: when it differs, nothing is sent and the exit code is 5.

--queue holds the message while the agent is in a turn (working) or a dialog holds its terminal (a permission prompt, a question), and sends it, with the same checks, when the turn ends; at once when it already has. Held messages wait in $CAST_HOME/queued/; the ingester's holder (cast daemon, or cast web without one) delivers them, one per turn. A send is new activity: it clears a kill and a verdict, and the session reads working (turn_pending) until the agent picks the message up.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> kdsmarj "Run the tests again and fix what fails"',
    {
      command: '<%= config.bin %> <%= command.id %> kdsmarj "Next: write the migration" --if needs_input',
      description: 'Only if it is waiting on you right now (exit 5 otherwise).',
    },
    {
      command: '<%= config.bin %> <%= command.id %> ziabnwy "Carry on" --if needs_input:settled',
      description: 'Only if its turn ended (not a dialog, an error or a dead process).',
    },
    {command: 'echo "Fix what the linter reports" | <%= config.bin %> <%= command.id %> kdsmarj -', description: 'The message from stdin.'},
    {
      command: '<%= config.bin %> <%= command.id %> --queue kdsmarj -- "Then update the changelog"',
      description: 'Held until its current turn ends, then sent as its next turn.',
    },
  ]
  static override flags = {
    ...teamFlags,
    queue: Flags.boolean({
      summary:
        'Hold the message until the current turn ends (the agent works, or a dialog is open), then send it; cast daemon or cast web delivers it.',
    }),
    if: Flags.string({
      helpValue: 'STATE[:REASON][,…]',
      multiple: true,
      multipleNonGreedy: true,
      summary: `Send only if the session is in one of these states (and reasons) now (${WORK_STATES.join(', ')}; repeat it or use commas); else exit 5.`,
    }),
  }
  static override summary = verb('reply').summary

  async run(): Promise<unknown> {
    const {args, flags} = await this.parse(Send)
    const {parseStateMatches} = await import('../lib/verbs/send.js')
    const ifMatch = flags.if === undefined ? undefined : parseStateMatches(flags.if.join(','), (m) => this.fail(m, EXIT.USAGE))
    let message = args.message
    if (message === '-') {
      const {readStdin} = await import('../lib/cli/stdin.js')
      message = (await readStdin()).replace(/\n+$/, '')
    }

    return this.verb('reply', {ifMatch, ifText: flags.if, message, queue: flags.queue, session: args.session}, flags)
  }
}
