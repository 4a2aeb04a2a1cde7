import {BaseCommand} from '../../lib/cli/base-command.js'
import {families, teamFamilies} from '../../core/store/families.js'

/** `cast team leave --json`: what leaving dropped here and removed from the server. */
export interface TeamLeaveJson {
  device: string
  /** Unsent changes dropped from the outbox. */
  dropped: number
  error: string | null
  /** This machine's session rows removed from the server (null: the server was not reached). */
  removed: number | null
  was_joined: boolean
}

export default class TeamLeave extends BaseCommand {
  static override description = `Stops publishing: the outbox is dropped and no more changes are queued; on the team store
(when it is reachable: else they stay until the admin runs cast team remove) this machine's
session rows are removed, actions still queued for it are refused, and its device name is
released for another member; team.url / team.name leave the config. Local sessions are untouched.`
  static override examples = ['<%= config.bin %> <%= command.id %>']
  static override summary = 'Leave the team store.'

  async run(): Promise<TeamLeaveJson> {
    await this.parse(TeamLeave)
    const {loadConfig, configPath} = await import('../../lib/home/config.js')
    const {teamTarget, redact, cleanError, openPool} = await teamFamilies.client()
    const {markLeft, teamJoin} = await families.outbox()
    const {deviceName} = await import('../../lib/home/env.js')
    const {writeTeamConfig} = await import('../../lib/team/config-file.js')
    const {leaveMachine} = await teamFamilies.calls()
    const {joinedDevice} = await teamFamilies.machines()
    const config = await loadConfig(this.env)
    const target = teamTarget(this.env, config)
    const store = await this.openStore()
    const device = joinedDevice(store) ?? deviceName(this.env)
    const wasJoined = teamJoin(store) !== null
    let removed: number | null = null
    let error: string | null = null
    if (target) {
      const pool = await openPool(target.url, {max: 1})
      try {
        removed = await leaveMachine(pool, device)
      } catch (error_) {
        error = cleanError(error_, target.url)
      } finally {
        await pool.end().catch(() => {})
      }
    }

    const dropped = markLeft(store)
    writeTeamConfig(configPath(this.env), null)
    if (!this.jsonEnabled()) {
      if (!wasJoined && !target) this.log('Not in a team.')
      else
        this.log(
          `Left${target ? ` ${redact(target.url)}` : ''}: ${dropped} unsent change(s) dropped; ${removed === null ? `this machine's rows stay on the server (${error ?? 'no server'})` : `${removed} session row(s) removed from the team store`}.`,
        )
    }

    return {device, dropped, error, removed, was_joined: wasJoined}
  }
}
