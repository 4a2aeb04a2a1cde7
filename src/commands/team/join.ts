import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../lib/base-command.js'
import type {Pool} from 'pg'

import {writeTeamConfig} from '../../lib/team-config.js'
import {EXIT} from '../../lib/exit-codes.js'

/** `cast team join --json`: the machine that joined, and what it published first. */
export interface TeamJoinJson {
  device: string
  /** This machine's key fingerprint (SHA256:…), published on its row. */
  fingerprint: string
  /** The other machines' keys and whether this machine trusts them (cast team keys). */
  keys: {device: string; who: string; fingerprint: string | null; status: import('../../team/keys.js').KeyStatus}[]
  name: string | null
  published: number
  schema_version: number
  server: string
  url_from: string
  who: string
}

export default class TeamJoin extends BaseCommand {
  static override args = {
    url: Args.string({description: 'postgres://USER:PASSWORD@HOST:PORT/DB of the team store (default: $CAST_TEAM_URL, or the config).'}),
  }
  static override description = `Connects this machine to the team's PostgreSQL: creates or upgrades the team schema when this
role may (a server written by a newer cast is refused), claims this device's row (CAST_DEVICE, else
the hostname) for the connecting role, and starts the outbox: from now on every change of a local
session (state, owners, state line, decisions, kills) is queued and published by cast daemon,
exactly once and in order, also after an outage.

The URL is written to the config (key team.url, file mode 0600) unless it came from $CAST_TEAM_URL
or the variable team.url_env names; the password is never printed. See docs/team.md for the
policy (each machine its own credentials) and the admin's setup.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> postgres://laptop:secret@db.example.com/cast --name platform',
    {
      command: 'CAST_TEAM_URL=postgres://me:pw@db.example.com/cast <%= config.bin %> <%= command.id %>',
      description: 'The URL from the environment (not written anywhere).',
    },
  ]
  static override flags = {
    name: Flags.string({helpValue: 'NAME', summary: "The team's name (shown by cast team status)."}),
  }
  static override summary = "Join the team's PostgreSQL store."

  async run(): Promise<TeamJoinJson> {
    const {args, flags} = await this.parse(TeamJoin)
    const {loadConfig, configPath} = await import('../../lib/config.js')
    const {teamTarget, redact, cleanError, openPool} = await import('../../core/store/team/client.js')
    const {markJoined, teamJoin} = await import('../../core/store/outbox.js')
    const {publishAll} = await import('../../core/store/team/publisher.js')
    const {deviceName} = await import('../../lib/env.js')
    const {randomUUID} = await import('node:crypto')
    const config = await loadConfig(this.env)
    const target = args.url
      ? {from: 'argument', name: flags.name ?? config.teamStore?.name ?? null, url: args.url}
      : teamTarget(this.env, config)
    if (!target) this.fail('No team store URL: pass one (cast team join postgres://…), or set CAST_TEAM_URL.', EXIT.USAGE)
    if (!/^postgres(ql)?:\/\//.test(target.url)) this.fail(`"${redact(target.url)}" is not a postgres:// URL.`, EXIT.USAGE)
    const name = flags.name ?? target.name
    const device = deviceName(this.env)
    const store = await this.openStore()
    const pool = await openPool(target.url, {max: 1})
    const schema = await this.register(pool, device, target.url)

    if (target.from === 'argument' || (flags.name && target.from === 'config')) {
      writeTeamConfig(configPath(this.env), {name: name ?? undefined, url: target.from === 'argument' ? target.url : undefined})
    } else if (flags.name) {
      writeTeamConfig(configPath(this.env), {name: name ?? undefined})
    }

    const clock = this.clock()
    await this.sync(store, clock)
    const before = teamJoin(store)
    markJoined(store, {epoch: before?.epoch ?? randomUUID(), joinedAt: clock(), name: name ?? null})
    let published = 0
    try {
      published = (await publishAll(store, pool, {device, epoch: teamJoin(store)!.epoch, now: clock})).sent
    } catch (error) {
      process.stderr.write(
        `cast: joined, but the first publish failed (${cleanError(error, target.url)}); cast daemon sends it when the store is reachable\n`,
      )
    } finally {
      await pool.end().catch(() => {})
    }

    const {fingerprint} = await this.machineKey()
    const keys = await this.teammateKeys(target.url, device)
    const result: TeamJoinJson = {
      device,
      fingerprint,
      keys,
      name: name ?? null,
      published,
      schema_version: schema.to,
      server: redact(target.url),
      url_from: target.from,
      who: this.me,
    }
    if (!this.jsonEnabled()) {
      this.log(
        `Joined${name ? ` team ${name}` : ' the team'} at ${redact(target.url)} as ${device} (${this.me}); team schema v${schema.to}${schema.from < schema.to ? ` (created/upgraded from v${schema.from})` : ''}; ${published} change${published === 1 ? '' : 's'} published.`,
      )
      this.log("cast daemon keeps publishing and carries out teammates' actions on this machine's sessions.")
      this.log(`This machine's key: ${fingerprint}`)
      if (keys.length > 0) {
        const {keyLineText} = await import('../../team/trust.js')
        this.log(`Teammates' machines (this machine carries out actions only from keys it trusts):`)
        for (const l of keys) this.log(keyLineText({...l, pinned: null}))
        this.log('Check a fingerprint with its owner, then: cast team trust DEVICE')
      }
    }

    return result
  }

  /** This machine's signing key (src/team/keys.ts), made on first use; a key file others can read is refused. */
  private async machineKey(): Promise<import('../../team/keys.js').MachineKey> {
    const {KeyFileError, machineKey} = await import('../../team/keys.js')
    const {castHome} = await import('../../lib/env.js')
    try {
      return machineKey(castHome(this.env))
    } catch (error) {
      if (error instanceof KeyFileError) this.fail(error.message, EXIT.FAILURE)
      throw error
    }
  }

  /** Teammates' keys beside this machine's trust list, for the person joining to check and trust. */
  private async teammateKeys(url: string, device: string): Promise<TeamJoinJson['keys']> {
    const {castHome} = await import('../../lib/env.js')
    const {linesFor, serverKeys} = await import('../../team/trust.js')
    let lines
    try {
      lines = linesFor(castHome(this.env), await serverKeys(url), device)
    } catch (error) {
      process.stderr.write(`cast: joined, but the teammates' keys could not be read (${(error as Error).message})\n`)
      return []
    }

    const others = lines.filter((l) => l.device !== device)
    return others.map((l) => ({device: l.device, fingerprint: l.fingerprint, status: l.status, who: l.who}))
  }

  /** Create or upgrade the team schema and register this machine; every failure is one line and its exit code. */
  private async register(pool: Pool, device: string, url: string): Promise<{from: number; to: number}> {
    const {redact, cleanError} = await import('../../core/store/team/client.js')
    const {migrateTeam} = await import('../../core/store/team/schema.js')
    const {registerMachine} = await import('../../core/store/team/calls.js')
    const key = await this.machineKey()
    try {
      const c = await pool.connect()
      try {
        const schema = await migrateTeam(c)
        await registerMachine(c, device, key.pubkey, this.config.version)
        return schema
      } finally {
        c.release()
      }
    } catch (error) {
      await pool.end().catch(() => {})
      const e = error as {code?: string; name?: string}
      if (e.name === 'TeamSchemaFromFutureError') this.fail((error as Error).message, EXIT.REFUSED)
      if (e.code === '42501') {
        this.fail(
          `The team store refused device "${device}": it is claimed by another machine's credentials (or this role is not a team member). Set CAST_DEVICE to this machine's own name.`,
          EXIT.REFUSED,
        )
      }

      this.fail(`Cannot join ${redact(url)}: ${cleanError(error, url)}`, EXIT.FAILURE)
    }
  }
}
