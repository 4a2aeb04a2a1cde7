import {BaseCommand} from '../../lib/cli/base-command.js'
import {sessionFlag} from '../../lib/cli/flags.js'
import type {SessionJson} from '../../lib/views/views.js'

/** `cast state clear --json`: the session after its state line was cleared. */
export interface StateClearJson {
  session: SessionJson
}

export default class StateClear extends BaseCommand {
  static override description = 'Removes the state line your session declared; the session falls back to what its files show.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --session kdsmarj']
  static override flags = {session: sessionFlag}
  static override summary = "Clear your session's declared state."

  async run(): Promise<StateClearJson> {
    const {flags} = await this.parse(StateClear)
    const {clock, store} = await this.syncedStore()
    const {findOwnSession} = await import('../../lib/agents/self-session.js')
    const {sessionJson} = await import('../../lib/views/views.js')
    const self = findOwnSession(store, flags.session, this.env)
    const now = clock()
    store.tx(() => {
      store.patchRecords(self.id, {declaration: null})
      store.reconcile(now, [self.id])
    })
    const row = store.loadSessions([self.id])[0]!
    const {setDeclaredMark} = await import('../../lib/ingest/turn-marks.js')
    setDeclaredMark(this.env, row.agent, row.nativeId, false)
    const json = sessionJson(row, this.me, now)
    if (!this.jsonEnabled()) this.log(`${json.short_id}: state cleared (now ${row.state}:${row.reason})`)
    return {session: json}
  }
}
