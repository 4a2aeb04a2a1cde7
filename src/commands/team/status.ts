import {BaseCommand} from '../../lib/cli/base-command.js'
import {EXIT} from '../../lib/base/exit-codes.js'
import type {Store} from '../../core/store/store.js'
import {families, type MachineRow, type SkippedRow, teamFamilies, text} from '../../core/store/families.js'

/** What `cast team status --json` says of this machine whether or not the server answers. */
export interface TeamStatusBase {
  /** Rows the team store refused, set aside here (the rest of their batch went on); the last ones named. */
  aside: {count: number; last: {at: string; kind: string; session: string | null; local_seq: number | null; why: string}[]}
  device: string
  /** The last publish that failed (null: none since joining). */
  last_error: {at: string; message: string} | null
  /** The last publish that delivered something. */
  last_publish: string | null
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
  | (TeamStatusBase & {
      actions_queued: number
      machines: TeamMachineJson[]
      reachable: true
      schema_version: number
      /** Teammates' rows no view shows (malformed, or not their member's): counted and named. */
      skipped: {count: number; rows: {device: string; id: string; why: string}[]}
      who_on_server: string | null
    })
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
    const {loadConfig} = await import('../../lib/home/config.js')
    const {teamTarget, redact, cleanError, openPool} = await teamFamilies.client()
    const {countOutbox, pendingOutbox, teamJoin} = await families.outbox()
    const {deviceName} = await import('../../lib/home/env.js')
    const {joinedDevice} = await teamFamilies.machines()
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
    const joinedAs = joinedDevice(store)
    const base: TeamStatusBase = {
      ...(await publishProblems(store, target.url)),
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
      const {list, queued, version, skipped, whoOnServer} = await serverStatus(pool, device)
      const result: TeamStatusJson = {
        ...base,
        actions_queued: queued,
        skipped: {count: skipped.length, rows: skipped.slice(0, 20)},
        who_on_server: whoOnServer,
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
      if (!this.jsonEnabled()) await this.printReachable(result, join.name, target.url, lastSync, joinedAs, now)
      return result
    } catch (error) {
      const why = cleanError(error, target.url)
      if (!this.jsonEnabled()) {
        const {humanTime} = await import('../../lib/base/time-format.js')
        this.log(
          `team ${join.name ?? '(unnamed)'} · ${redact(target.url)} · UNREACHABLE: ${why}\nthis machine: ${device} · outbox ${pending} pending (kept until the server is back)`,
        )
        this.logProblems(base, now, humanTime, text)
      }

      process.exitCode = EXIT.FAILURE
      return {...base, error: why, reachable: false}
    } finally {
      await pool.end().catch(() => {})
    }
  }

  /** The human form of a reachable status (agent-written text through the sanitizer). */
  private async printReachable(
    r: Extract<TeamStatusJson, {reachable: true}>,
    name: string | null,
    url: string,
    lastSync: number | null,
    joinedAs: string | null,
    now: number,
  ): Promise<void> {
    const {humanTime} = await import('../../lib/base/time-format.js')
    const {redact} = await teamFamilies.client()
    // Device names, identities and reasons come from teammates and the server: one line, escaped.
    const {oneLine: text} = await import('../../core/model/sanitize.js')
    this.log(`team ${name ?? '(unnamed)'} · ${redact(url)} · schema v${r.schema_version} · reachable`)
    this.log(
      `this machine: ${r.device} (${this.me}) · outbox ${r.pending} pending${r.pending > 0 ? `, oldest ${Math.round(r.lag_ms / 1000)} s` : ''} · last sync ${humanTime(lastSync, now)} · ${r.actions_queued} action(s) queued here`,
    )
    if (joinedAs && joinedAs !== r.device) this.log(`  joined as ${text(joinedAs)}: the next publish moves its rows to ${text(r.device)}`)
    this.log(
      `  the team knows this role as ${r.who_on_server === null ? '(not admitted: the admin runs cast team admit)' : text(r.who_on_server)}`,
    )
    this.logProblems(r, now, humanTime, text)
    if (r.skipped.count > 0) {
      this.log(`teammates' rows skipped (${r.skipped.count}; no view shows them):`)
      for (const x of r.skipped.rows) this.log(`  ${text(x.id.slice(0, 12))} on ${text(x.device)}: ${text(x.why)}`)
    }

    this.log(`machines seen (${r.machines.length}):`)
    for (const m of r.machines)
      this.log(
        `  ${text(m.device)}  ${text(m.who)}  ${m.sessions} sessions  last seen ${humanTime(m.last_seen, now)}  ${m.pending} pending`,
      )
  }

  /** The set-aside rows and the last publish error, one line each (agent text through the sanitizer). */
  private logProblems(
    base: TeamStatusBase,
    now: number,
    humanTime: (t: number | null, now: number) => string,
    text: (s: string) => string,
  ): void {
    if (base.last_error) {
      const at = Date.parse(base.last_error.at)
      const since =
        base.last_publish && Date.parse(base.last_publish) > at
          ? ` (published since, ${humanTime(Date.parse(base.last_publish), now)})`
          : ''
      this.log(`last publish error ${humanTime(at, now)}: ${text(base.last_error.message)}${since}`)
    }

    if (base.aside.count > 0) {
      this.log(`set aside: ${base.aside.count} row(s) the team store refused (kept here, not sent; the rest went on):`)
      for (const r of base.aside.last)
        this.log(
          `  ${r.kind} ${r.session ? text(r.session.slice(0, 12)) : '?'}${r.local_seq === null ? '' : ` #${r.local_seq}`}: ${text(r.why)}`,
        )
    }
  }
}

/** What publishing could not deliver: the rows set aside (the last 10 named) and the last error. */
async function publishProblems(store: Store, url: string): Promise<Pick<TeamStatusBase, 'aside' | 'last_error' | 'last_publish'>> {
  const {lastPublish, lastPublishError, readAside} = await teamFamilies.aside()
  const {cleanError} = await teamFamilies.client()
  const aside = readAside(store)
  const lastError = lastPublishError(store)
  const published = lastPublish(store)
  return {
    aside: {
      count: aside.count,
      last: aside.rows
        .slice(-10)
        .map((r) => ({at: new Date(r.at).toISOString(), kind: r.kind, local_seq: r.localSeq, session: r.session, why: r.why})),
    },
    last_error: lastError ? {at: new Date(lastError.at).toISOString(), message: cleanError(new Error(lastError.message), url)} : null,
    last_publish: published ? new Date(published).toISOString() : null,
  }
}

/** What the team server says: its schema version, every machine it has seen, the actions queued for this one, the rows no view shows. */
async function serverStatus(
  pool: import('pg').Pool,
  device: string,
): Promise<{list: MachineRow[]; queued: number; version: number; skipped: SkippedRow[]; whoOnServer: string | null}> {
  const {machines, remoteRows} = await teamFamilies.reader()
  const {serverVersion} = await teamFamilies.schema()
  const {pendingActions} = await teamFamilies.machines()
  const {whoAmIOnServer} = await teamFamilies.calls()
  const c = await pool.connect()
  let version = 0
  try {
    version = await serverVersion(c)
  } finally {
    c.release()
  }

  const whoOnServer = version >= 2 ? await whoAmIOnServer(pool) : null
  const skipped = version >= 2 ? (await remoteRows(pool, device)).skipped : []
  return {list: await machines(pool), queued: await pendingActions(pool, device), skipped, version, whoOnServer}
}
