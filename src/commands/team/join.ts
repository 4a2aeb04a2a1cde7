import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../lib/cli/base-command.js'
import type {Pool} from 'pg'

import type {Store} from '../../core/store/store.js'
import {families, teamFamilies} from '../../core/store/families.js'

import {writeTeamConfig} from '../../lib/team/config-file.js'
import {EXIT} from '../../lib/base/exit-codes.js'

/** `cast team join --json`: the machine that joined, and what it published first. */
export interface TeamJoinJson {
  device: string
  /** This machine's key fingerprint (SHA256:…), published on its row (null: the admin's setup, no machine joined). */
  fingerprint: string | null
  /** The other machines' keys and whether this machine trusts them (cast team keys). */
  keys: {device: string; who: string; fingerprint: string | null; status: import('../../lib/team/keys.js').KeyStatus}[]
  name: string | null
  published: number
  schema_version: number
  server: string
  url_from: string
  /** The identity the team's admin bound to this role (null: the admin's own role, not a member: nothing published). */
  who: string | null
}

export default class TeamJoin extends BaseCommand {
  static override args = {
    url: Args.string({description: 'postgres://USER:PASSWORD@HOST:PORT/DB of the team store (default: $CAST_TEAM_URL, or the config).'}),
  }
  static override description = `Connects this machine to the team's PostgreSQL: creates or upgrades the team schema when this
role may (a server written by a newer cast is refused), registers this device (CAST_DEVICE, else
HOST:ACCOUNT) under the identity the team's admin bound to the connecting role (cast team admit;
a role not admitted is refused), and starts the outbox: from now on every change of a local
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
    const {loadConfig, configPath} = await import('../../lib/home/config.js')
    const {teamTarget, redact, cleanError, openPool} = await teamFamilies.client()
    const {markJoined, teamJoin} = await families.outbox()
    const {publishAll} = await teamFamilies.publisher()
    const {deviceName} = await import('../../lib/home/env.js')
    const {recordDevice} = await teamFamilies.machines()
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
    const {schema, who} = await this.register(pool, store, device, target.url)
    if (who === null) {
      // The team's admin set up (or upgraded) the schema without being a member: nothing to publish from here.
      await pool.end().catch(() => {})
      return this.schemaOnly(target, name ?? null, device, schema)
    }

    if (target.from === 'argument' || (flags.name && target.from === 'config')) {
      writeTeamConfig(configPath(this.env), {name: name ?? undefined, url: target.from === 'argument' ? target.url : undefined})
    } else if (flags.name) {
      writeTeamConfig(configPath(this.env), {name: name ?? undefined})
    }

    const clock = this.clock()
    await this.sync(store, clock)
    const before = teamJoin(store)
    markJoined(store, {epoch: before?.epoch ?? randomUUID(), joinedAt: clock(), name: name ?? null})
    recordDevice(store, device)
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
      who,
    }
    if (!this.jsonEnabled()) {
      this.log(
        `Joined${name ? ` team ${name}` : ' the team'} at ${redact(target.url)} as ${device} (${who}); team schema v${schema.to}${schema.from < schema.to ? ` (created/upgraded from v${schema.from})` : ''}; ${published} change${published === 1 ? '' : 's'} published.`,
      )
      if (who !== this.me)
        this.log(`The team knows this machine's role as ${who} (here: ${this.me}); teammates see its sessions run by ${who}.`)
      this.log("cast daemon keeps publishing and carries out teammates' actions on this machine's sessions.")
      await this.logKeys(fingerprint, keys)
    }

    return result
  }

  /** This machine's signing key (src/lib/team/keys.ts), made on first use; a key file others can read is refused. */
  private async machineKey(): Promise<import('../../lib/team/keys.js').MachineKey> {
    const {KeyFileError, machineKey} = await import('../../lib/team/keys.js')
    const {castHome} = await import('../../lib/home/env.js')
    try {
      return machineKey(castHome(this.env))
    } catch (error) {
      if (error instanceof KeyFileError) this.fail(error.message, EXIT.FAILURE)
      throw error
    }
  }

  /** The admin's join: the schema is ready, the URL kept for cast team admit, nothing published. */
  private async schemaOnly(
    target: {from: string; url: string},
    name: string | null,
    device: string,
    schema: {from: number; to: number},
  ): Promise<TeamJoinJson> {
    const {configPath} = await import('../../lib/home/config.js')
    const {redact} = await teamFamilies.client()
    if (target.from === 'argument') writeTeamConfig(configPath(this.env), {name: name ?? undefined, url: target.url})
    if (!this.jsonEnabled())
      this.log(
        `Team schema v${schema.to} ready at ${redact(target.url)}${schema.from < schema.to ? ` (created/upgraded from v${schema.from})` : ''}. This role is not a member, so this machine does not publish: admit each machine's role with cast team admit ROLE EMAIL.`,
      )
    return {
      device,
      fingerprint: null,
      keys: [],
      name,
      published: 0,
      schema_version: schema.to,
      server: redact(target.url),
      url_from: target.from,
      who: null,
    }
  }

  private async logKeys(fingerprint: string, keys: TeamJoinJson['keys']): Promise<void> {
    this.log(`This machine's key: ${fingerprint}`)
    if (keys.length === 0) return
    const {keyLineText} = await import('../../lib/team/trust.js')
    this.log(`Teammates' machines (this machine carries out actions only from keys it trusts):`)
    for (const l of keys) this.log(keyLineText({...l, pinned: null}))
    this.log('Check a fingerprint with its owner, then: cast team trust DEVICE')
  }

  /** Teammates' keys beside this machine's trust list, for the person joining to check and trust. */
  private async teammateKeys(url: string, device: string): Promise<TeamJoinJson['keys']> {
    const {castHome} = await import('../../lib/home/env.js')
    const {linesFor, serverKeys} = await import('../../lib/team/trust.js')
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

  /**
   * Create or upgrade the team schema and register this machine under the identity the admin
   * bound to this role (who: null when the role is not a member but is the team's admin). Every
   * failure is one line and its exit code.
   */
  private async register(
    pool: Pool,
    store: Store,
    device: string,
    url: string,
  ): Promise<{schema: {from: number; to: number}; who: string | null}> {
    const {redact, cleanError} = await teamFamilies.client()
    const {migrateTeam} = await teamFamilies.schema()
    const {membership, moveMachine, registerMachine} = await teamFamilies.calls()
    const {joinedDevice} = await teamFamilies.machines()
    const key = await this.machineKey()
    try {
      const c = await pool.connect()
      try {
        const schema = await migrateTeam(c)
        const role = await membership(c)
        if (role.who === null && role.admin) return {schema, who: null}
        const who = await registerMachine(c, device, key.pubkey, this.config.version)
        const was = joinedDevice(store)
        if (was && was !== device) await moveMachine(c, was, device).catch(() => 0)
        return {schema, who}
      } finally {
        c.release()
      }
    } catch (error) {
      await pool.end().catch(() => {})
      const e = error as {code?: string; name?: string; message: string}
      if (e.name === 'TeamSchemaFromFutureError') this.fail(e.message, EXIT.REFUSED)
      if (e.code === '42501') {
        const why = /not admitted/.test(e.message)
          ? `${cleanError(error, url)}`
          : /belongs to another member/.test(e.message)
            ? `device "${device}" belongs to another member of the team. Set CAST_DEVICE to this machine's own name`
            : cleanError(error, url)
        this.fail(`The team store refused this machine: ${why}.`, EXIT.REFUSED)
      }

      this.fail(`Cannot join ${redact(url)}: ${cleanError(error, url)}`, EXIT.FAILURE)
    }
  }
}
