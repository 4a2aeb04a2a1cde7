import {Args, Flags} from '@oclif/core'

import {WORK_STATES, type WorkState} from '../core/model/types.js'
import {resumeExamples} from '../lib/agents/agent-commands.js'
import {BaseCommand, type RemoteVerbJson} from '../lib/cli/base-command.js'
import {EXIT} from '../lib/base/exit-codes.js'
import {teamFlags} from '../lib/cli/flags.js'
import type {SendResult} from '../lib/agents/deliver.js'
import type {SessionJson} from '../lib/views/views.js'
import {verb} from '../core/model/verbs.js'

/** `cast send --json`: how the message went in, and the session after it. */
export interface SendJson {
  at: string
  log: SendResult['log']
  pane: SendResult['pane']
  pid: SendResult['pid']
  route: SendResult['route']
  session: SessionJson
  via: string
}

export default class Send extends BaseCommand {
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

  async run(): Promise<SendJson | QueuedJson | RemoteVerbJson> {
    const {args, flags} = await this.parse(Send)
    const ifMatch = flags.if === undefined ? undefined : parseStateMatches(flags.if.join(','), (m) => this.fail(m, EXIT.USAGE))
    let message = args.message
    if (message === '-') {
      const {readStdin} = await import('../lib/cli/stdin.js')
      message = (await readStdin()).replace(/\n+$/, '')
    }

    if (message.trim() === '') this.fail('The message is empty.', EXIT.USAGE)
    const {checkMessageText} = await import('../lib/agents/message-text.js')
    message = checkMessageText(message)
    if (flags.queue) return this.queue(args.session, message, flags.if !== undefined)
    const remote = await this.remoteVerb('send', args.session, {if: flags.if ?? null, message}, flags)
    if (remote) return remote
    const {clock, store} = await this.syncedStore()
    const {resolveSession} = await import('../lib/base/resolve.js')
    const {sendMessage} = await import('../lib/agents/deliver.js')
    const {sessionJson} = await import('../lib/views/views.js')
    const id = resolveSession(store, args.session)
    const r = await sendMessage(store, this.env, clock, this.me, id, message, {ifMatch, synced: true})
    const json = sessionJson(r.row, this.me, clock())
    if (!this.jsonEnabled()) {
      this.log(`Sent to ${json.short_id} via ${r.via}${r.log ? `; output in ${r.log}` : ''}. Now ${r.row.state}:${r.row.reason}.`)
    }

    return {at: new Date(r.at).toISOString(), log: r.log, pane: r.pane, pid: r.pid, route: r.route, session: json, via: r.via}
  }

  /** --queue: held until the turn ends (src/lib/agents/send-queue.ts), or sent now when it has. */
  private async queue(query: string, message: string, withIf: boolean): Promise<SendJson | QueuedJson> {
    if (withIf) this.fail('--queue waits for the turn to end; it does not take --if.', EXIT.USAGE)
    const {clock, store} = await this.syncedStore()
    const {resolveSession} = await import('../lib/base/resolve.js')
    const {holdsMessage, queueMessage} = await import('../lib/agents/send-queue.js')
    const {sessionJson} = await import('../lib/views/views.js')
    const id = resolveSession(store, query)
    const row = store.loadSessions([id])[0]!
    if (!holdsMessage(row)) {
      const {sendMessage} = await import('../lib/agents/deliver.js')
      const r = await sendMessage(store, this.env, clock, this.me, id, message, {synced: true})
      const json = sessionJson(r.row, this.me, clock())
      if (!this.jsonEnabled()) this.log(`Its turn had ended: sent to ${json.short_id} via ${r.via}. Now ${r.row.state}:${r.row.reason}.`)
      return {at: new Date(r.at).toISOString(), log: r.log, pane: r.pane, pid: r.pid, route: r.route, session: json, via: r.via}
    }

    const q = queueMessage(this.env, id, message, this.me, clock())
    const json = sessionJson(row, this.me, clock())
    const {INGESTER_LEASE, leaseIsLive} = await import('../lib/ingest/ingest.js')
    const delivering = leaseIsLive(store.getLease(INGESTER_LEASE))
    if (!this.jsonEnabled()) {
      this.log(`Queued ${q.id} for ${json.short_id} (${row.state}:${row.reason}): it goes in as its next turn when this one ends.`)
      if (!delivering) this.log('No cast daemon (or cast web) runs now: it is delivered once one does.')
    }

    return {at: q.at, delivering, id: q.id, queued: true, session: json}
  }
}

/** `cast send --queue --json` when the message is held. */
export interface QueuedJson {
  at: string
  /** A cast daemon (or cast web) holds the ingester lease now, so it will be delivered. */
  delivering: boolean
  id: string
  queued: true
  session: SessionJson
}

/** `needs_input:settled,done` → states with optional reasons; anything else is a usage error. */
export function parseStateMatches(text: string, fail: (message: string) => never): {state: WorkState; reason: string | null}[] {
  const out: {state: WorkState; reason: string | null}[] = []
  for (const part of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [state, reason, ...rest] = part.split(':')
    if (rest.length > 0 || (reason !== undefined && !/^[a-z_]+$/.test(reason.trim())))
      fail(`"${part}" is not STATE or STATE:REASON (e.g. needs_input:settled).`)
    out.push({reason: reason === undefined ? null : reason.trim(), state: parseStates(state!, fail)[0]!})
  }

  if (out.length === 0) fail(`--if needs a state: ${WORK_STATES.join(', ')}.`)
  return out
}

/** `needs_input,done` → the states; anything else is a usage error. */
export function parseStates(text: string, fail: (message: string) => never): WorkState[] {
  const states = text
    .split(',')
    .map((s) => s.trim().replace('-', '_'))
    .filter(Boolean)
  for (const s of states) {
    if (!(WORK_STATES as readonly string[]).includes(s)) fail(`"${s}" is not a state; use ${WORK_STATES.join(', ')}.`)
  }

  if (states.length === 0) fail(`--if needs a state: ${WORK_STATES.join(', ')}.`)
  return states as WorkState[]
}
