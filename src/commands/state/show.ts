import {Args} from '@oclif/core'

import {BaseCommand} from '../../lib/cli/base-command.js'
import type {WorkState} from '../../core/model/types.js'
import {sessionFlag} from '../../lib/cli/flags.js'
import type {SessionJson} from '../../lib/views/views.js'

/** `cast state show --json`: a session's state line with its current state and reason. */
export interface StateShowJson {
  session: string
  short_id: string
  state: WorkState
  reason: string
  state_line: SessionJson['state_line']
}

export default class StateShow extends BaseCommand {
  static override args = {session: Args.string({description: 'Another session to read (default: your own).'})}
  static override description = `Prints the state line a session declared, its status, when, and how many messages have
passed since it was written — with the session's current state and reason.`
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> kdsmarj --json']
  static override flags = {session: sessionFlag}
  static override summary = "Read a session's declared state line."

  async run(): Promise<StateShowJson> {
    const {args, flags} = await this.parse(StateShow)
    const {clock, store} = await this.syncedStore()
    const {findOwnSession} = await import('../../lib/agents/self-session.js')
    const {resolveSession} = await import('../../lib/base/resolve.js')
    const {sessionJson} = await import('../../lib/views/views.js')
    const id = args.session ? resolveSession(store, args.session) : findOwnSession(store, flags.session, this.env).id
    const now = clock()
    const row = store.loadSessions([id])[0]!
    const json = sessionJson(row, this.me, now)
    if (!this.jsonEnabled()) {
      this.log(`${json.short_id}  ${json.title ?? '(untitled)'}  — ${row.state}:${row.reason}`)
      if (json.state_line) {
        this.log(
          `${json.state_line.status} at ${(await import('../../lib/base/time-format.js')).humanTime(json.state_line.at, now)} (${json.state_line.messages_since} messages since)`,
        )
        this.log(json.state_line.text)
      } else {
        this.log('No state declared.')
      }
    }

    return {session: json.id, short_id: json.short_id, state: row.state, reason: row.reason, state_line: json.state_line}
  }
}
