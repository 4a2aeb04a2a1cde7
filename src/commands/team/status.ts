import {BaseCommand} from '../../lib/base-command.js'
import type {MachineRow} from '../../core/store/team/reader.js'
import {EXIT} from '../../lib/exit-codes.js'

/** What `cast team status --json` says of this machine whether or not the server answers. */
export interface TeamStatusBase {
  device: string
  joined: true
  last_sync: string | null
  lag_ms: number
  name: string | null
  pending: number
  server: string
  url_from: string
  who: string
}

export interface TeamMachineJson {
  device: string
  last_seen: string
  last_sync: string | null
  pending: number
  sessions: number
  who: string
}

/** `cast team status --json`: not joined; joined and reachable; or joined and unreachable (exit 1). */
export type TeamStatusJson =
  | {joined: false}
  | (TeamStatusBase & {actions_queued: number; machines: TeamMachineJson[]; reachable: true; schema_version: number})
  | (TeamStatusBase & {error: string; reachable: false})

export default class TeamStatus extends BaseCommand {
  static override description = `The team store this machine publishes to (password hidden), whether it is reachable, the
outbox (changes not yet on the server, and how old the oldest is: the lag), the last sync, the
actions queued for this machine, and every machine seen with its identity, last contact and
sessions. Exit 1 when the server cannot be reached (the outbox keeps everything meanwhile).`
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
  static override summary = 'The team store: server, lag, last sync, outbox, machines.'

  async run(): Promise<TeamStatusJson> {
    await this.parse(TeamStatus)
    const {loadConfig} = await import('../../lib/config.js')
    const {teamTarget, redact, cleanError, openPool} = await import('../../core/store/team/client.js')
    const {countOutbox, pendingOutbox, teamJoin} = await import('../../core/store/outbox.js')
    const {deviceName} = await import('../../lib/env.js')
    const config = await loadConfig(this.env)
    const store = await this.openStore()
    const join = teamJoin(store)
    const target = teamTarget(this.env, config)
    const device = deviceName(this.env)
    if (!join || !target) {
      if (!this.jsonEnabled()) this.log('Not in a team. Join one with: cast team join postgres://USER:PASSWORD@HOST/DB')
      return {joined: false}
    }

    const pending = countOutbox(store)
    const oldest = pendingOutbox(store, 1)[0]
    const lastSync = Number(store.getMeta('team.last_sync') ?? 0) || null
    const now = Date.now()
    const base: TeamStatusBase = {
      device,
      joined: true,
      last_sync: lastSync ? new Date(lastSync).toISOString() : null,
      lag_ms: oldest ? Math.max(0, now - oldest.at) : 0,
      name: join.name,
      pending,
      server: redact(target.url),
      url_from: target.from,
      who: this.me,
    }
    const pool = await openPool(target.url, {connectTimeoutMs: 3000, max: 1})
    try {
      const {list, queued, version} = await serverStatus(pool, device)
      const result: TeamStatusJson = {
        ...base,
        actions_queued: queued,
        machines: list.map((m) => ({
          device: m.device,
          last_seen: m.lastSeen.toISOString(),
          last_sync: m.lastSync?.toISOString() ?? null,
          pending: m.pending,
          sessions: m.sessions,
          who: m.who,
        })),
        reachable: true,
        schema_version: version,
      }
      if (!this.jsonEnabled()) {
        const {humanTime} = await import('../../lib/time-format.js')
        const {oneLine} = await import('../../lib/sanitize.js')
        this.log(`team ${join.name ?? '(unnamed)'} · ${redact(target.url)} · schema v${version} · reachable`)
        this.log(
          `this machine: ${device} (${this.me}) · outbox ${pending} pending${pending > 0 ? `, oldest ${Math.round(base.lag_ms / 1000)} s` : ''} · last sync ${humanTime(lastSync, now)} · ${result.actions_queued} action(s) queued here`,
        )
        this.log(`machines seen (${list.length}):`)
        for (const m of list)
          this.log(
            `  ${oneLine(m.device)}  ${oneLine(m.who)}  ${m.sessions} sessions  last seen ${humanTime(m.lastSeen.getTime(), now)}  ${m.pending} pending`,
          )
      }

      return result
    } catch (error) {
      const why = cleanError(error, target.url)
      if (!this.jsonEnabled())
        this.log(
          `team ${join.name ?? '(unnamed)'} · ${redact(target.url)} · UNREACHABLE: ${why}\nthis machine: ${device} · outbox ${pending} pending (kept until the server is back)`,
        )
      process.exitCode = EXIT.FAILURE
      return {...base, error: why, reachable: false}
    } finally {
      await pool.end().catch(() => {})
    }
  }
}

/** What the team server says: its schema version, every machine it has seen, the actions queued for this one. */
async function serverStatus(pool: import('pg').Pool, device: string): Promise<{list: MachineRow[]; queued: number; version: number}> {
  const {machines} = await import('../../core/store/team/reader.js')
  const {serverVersion} = await import('../../core/store/team/schema.js')
  const {pendingActions} = await import('../../core/store/team/machines.js')
  const c = await pool.connect()
  let version = 0
  try {
    version = await serverVersion(c)
  } finally {
    c.release()
  }

  return {list: await machines(pool), queued: await pendingActions(pool, device), version}
}
