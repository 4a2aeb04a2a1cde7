import {Args, Flags} from '@oclif/core'

import {DECLARED_STATUSES} from '../../core/model/types.js'
import {BaseCommand} from '../../lib/cli/base-command.js'
import {EXIT} from '../../lib/base/exit-codes.js'
import {sessionFlag} from '../../lib/cli/flags.js'
import type {SelfSession} from '../../lib/agents/self-session.js'
import {MAX_STATE_TEXT} from '../../lib/state/state-args.js'
import type {SessionJson} from '../../lib/views/views.js'

/** `cast state --json`: the session after the declaration, and how it was found. */
export interface StateJson {
  session: SessionJson
  via: SelfSession['via']
}

export {MAX_STATE_TEXT} from '../../lib/state/state-args.js'

export default class State extends BaseCommand {
  static override args = {
    text: Args.string({description: 'What the session is doing or waiting on; first line = headline. "-" reads stdin.'}),
  }
  static override description = `Pins one short block of text to your session and says who acts next.

--status is your answer to WHO ACTS NEXT, and it decides where the session
files in the inbox when your turn ends:
  working   still moving (default)
  blocked   a human must act to unblock you            → Needs Input
  done      delivered; nothing stalled, review at leisure → Done
  dormant   a machine wakes you: name the wake in the text → Dormant
done and dormant cover exactly the turn that declares them: after the next
wake, declare again or the session returns to Needs Input.

The session is found from --session, else CAST_SESSION, else the agent's own variable
(the one its CLI sets naming its session), else the process tree (the nearest agent process above this one).`
  static override examples = [
    '<%= config.bin %> <%= command.id %> --status dormant "Waiting on CI run 8841: tr-42 re-checks at 3pm"',
    '<%= config.bin %> <%= command.id %> --status done "Shipped: all four fixes verified in the browser"',
    '<%= config.bin %> <%= command.id %> clear               # the state no longer holds',
  ]
  static override flags = {
    session: sessionFlag,
    status: Flags.option({options: DECLARED_STATUSES, summary: 'Who acts next when this turn ends (default: working).'})(),
  }
  static override summary = "Declare your session's state: working, blocked, done or dormant."

  async run(): Promise<StateJson> {
    const {args, flags} = await this.parse(State)
    if (args.text === undefined && flags.status === undefined) {
      this.fail('Say what the session is doing: cast state "TEXT" [--status working|blocked|done|dormant].', EXIT.USAGE, [
        'Read the current state line with: cast state show',
      ])
    }

    const status = flags.status ?? 'working'
    let text = args.text ?? ''
    if (text === '-') text = await readStdin()
    text = text.replace(/\s+$/, '')
    if (text.length > MAX_STATE_TEXT) this.fail(`The state text is ${text.length} characters; keep it under ${MAX_STATE_TEXT}.`, EXIT.USAGE)
    if (status === 'dormant' && text.trim() === '') {
      this.fail('--status dormant needs text that names the wake (what will wake you, and when).', EXIT.USAGE, [
        'cast state --status dormant "Waiting on CI run 8841; re-checks at 3pm"',
      ])
    }

    const {clock, store} = await this.syncedStore()
    const {ancestryProcess, findOwnSession} = await import('../../lib/agents/self-session.js')
    const {deviceName} = await import('../../lib/home/env.js')
    const {sessionJson} = await import('../../lib/views/views.js')
    const self = findOwnSession(store, flags.session, this.env)
    const now = clock()
    store.tx(() => {
      let row = store.loadSessions([self.id])[0]!
      // The caller runs inside the agent: its ancestry proves the agent alive where this process
      // cannot see it (a sandbox of its own), so the session does not read dead from here.
      const proc = ancestryProcess(row.agent, self, row.facts.process, now)
      if (proc !== null) {
        const facts = {...row.facts, process: proc, sources: {...row.facts.sources, process: proc.source}}
        store.upsertFacts(row.agent, row.nativeId, facts, facts.parentNativeId, {device: deviceName(), now, runner: this.me})
        row = store.loadSessions([self.id])[0]!
      }
      store.patchRecords(self.id, {
        declaration: {at: now, messages: row.facts.messages, status, text, turnIndex: row.facts.turnIndex},
      })
      store.reconcile(now, [self.id])
    })
    const row = store.loadSessions([self.id])[0]!
    // The hook's marker: a rest declaration spares this turn the nudge (docs/hooks.md).
    const {setDeclaredMark} = await import('../../lib/ingest/turn-marks.js')
    setDeclaredMark(this.env, row.agent, row.nativeId, status !== 'working')
    const json = sessionJson(row, this.me, now)
    if (!this.jsonEnabled())
      this.log(
        `${json.short_id}: ${status}${text ? ` — ${text.split('\n')[0]}` : ''}  (now ${row.state}:${row.reason}; found via ${self.via})`,
      )
    return {session: json, via: self.via}
  }
}

export async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return ''
  const chunks: Buffer[] = []
  for await (const c of process.stdin) chunks.push(c as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}
