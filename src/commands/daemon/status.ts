import {BaseCommand} from '../../lib/cli/base-command.js'

/** `cast daemon status --json`: the ingester's lease, and the store it writes. */
export interface DaemonStatusJson {
  files: number
  holder: {
    files_watched: number | null
    heartbeat_age_ms: number
    host: string
    pid: number
    roots: string[]
    started_at: string
    uptime_ms: number
  } | null
  last_seq: number
  parse_errors: number
  running: boolean
  sessions: number
  store: string
}

export default class DaemonStatus extends BaseCommand {
  static override description =
    'Shows who holds the ingester lease (pid, host), since when, its last heartbeat, the files it watches, and the store: sessions, files read, malformed lines skipped.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
  static override summary = 'Show the ingester and the store.'

  async run(): Promise<DaemonStatusJson> {
    await this.parse(DaemonStatus)
    const store = await this.openStore()
    const {INGESTER_LEASE, leaseIsLive} = await import('../../lib/ingest/ingest.js')
    const lease = store.getLease(INGESTER_LEASE)
    const now = Date.now()
    const running = leaseIsLive(lease, now)
    const result: DaemonStatusJson = {
      files: store.countFiles(),
      holder: lease
        ? {
            files_watched: (lease.info.files as number | undefined) ?? null,
            heartbeat_age_ms: now - lease.heartbeatAt,
            host: lease.host,
            pid: lease.pid,
            roots: (lease.info.roots as string[] | undefined) ?? [],
            started_at: new Date(lease.startedAt).toISOString(),
            uptime_ms: now - lease.startedAt,
          }
        : null,
      last_seq: store.lastSeq(),
      parse_errors: store.totalParseErrors(),
      running,
      sessions: store.countSessions(),
      store: store.home,
    }
    if (!this.jsonEnabled()) {
      if (running && result.holder) {
        const h = result.holder
        this.log(
          `ingester: running, pid ${h.pid} on ${h.host}, up ${Math.round(h.uptime_ms / 1000)} s, heartbeat ${Math.round(h.heartbeat_age_ms / 1000)} s ago`,
        )
        this.log(`watching: ${h.files_watched ?? '?'} files under ${h.roots.join(', ')}`)
      } else {
        this.log(
          `ingester: not running${lease ? ` (stale lease of pid ${lease.pid} on ${lease.host})` : ''}; cast sessions syncs by itself`,
        )
      }

      this.log(`store: ${result.store}`)
      this.log(
        `sessions: ${result.sessions} · files read: ${result.files} · malformed lines skipped: ${result.parse_errors} · last seq: ${result.last_seq}`,
      )
    }

    return result
  }
}
