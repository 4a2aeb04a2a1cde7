import {Flags} from '@oclif/core'

import {EXIT} from '../lib/exit-codes.js'
import type {Termination} from '../lib/terminate.js'
import {TriageCommand} from '../lib/triage.js'
import type {SessionJson} from '../lib/views.js'

export interface KillJson {
  verb: 'kill'
  action: number | null
  killed: {
    id: string
    /** It was killed before this command: only a process that came back was stopped. */
    already: boolean
    short_id: string
    pid: number | null
    pgid: number | null
    signal: 'SIGTERM' | 'SIGKILL' | null
    processes: number
    survivors: number[]
    error: string | null
    cancelled_schedules: number
  }[]
  sessions: SessionJson[]
}

const DEFAULT_GRACE_MS = 5000

export default class Kill extends TriageCommand {
  static override description = `Done with it: tears the agent down and files the session under Killed (idle,
reason killed). The agent's process group gets SIGTERM, and SIGKILL whatever
still runs after the grace (default 5s); its armed scheduled messages are
cancelled; the watch stream prints one "gone" line. The transcript stays
readable and the session restartable: only a new cast send clears a kill,
and a stale queued message or a revived process cannot. cast undo brings the
card back, not the process.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> 3f9a2c1',
    {command: '<%= config.bin %> <%= command.id %> 3f9a2c1 7be01d4 --grace 0', description: 'Kill two sessions, SIGKILL at once.'},
  ]
  static override flags = {
    grace: Flags.string({helpValue: 'D', summary: 'How long to wait after SIGTERM before SIGKILL (default 5s; 0 = at once).'}),
  }
  static override strict = false
  static override summary = 'Kill sessions: stop the agent, file them under Killed.'
  static override usage = ['<%= command.id %> SESSION... [--grace D]']

  async run(): Promise<KillJson> {
    const {argv, flags} = await this.parse(Kill)
    const queries = this.sessionArgs(argv)
    let graceMs = DEFAULT_GRACE_MS
    if (flags.grace !== undefined) {
      const {parseDuration} = await import('../core/model/durations.js')
      const ms = flags.grace.trim() === '0' ? 0 : parseDuration(flags.grace)
      if (ms === null) this.fail(`--grace "${flags.grace}" is not a duration: try 0, 500ms, 5s or 1m.`, EXIT.USAGE)
      graceMs = ms
    }

    const store = await this.openStore()
    const clock = this.clock()
    const {syncBeforeRead, makeIngester} = await import('../lib/ingest.js')
    const {resolveSessions} = await import('../lib/resolve.js')
    const {applyTriage} = await import('../core/store/triage.js')
    const {terminate} = await import('../lib/terminate.js')
    const {shortId} = await import('../core/model/ids.js')
    const {isKilled} = await import('../core/model/work-state.js')
    syncBeforeRead(store, this.env, clock, this.me)
    const ids = resolveSessions(store, queries)
    const {deviceName} = await import('../lib/env.js')
    const pids = new Map<string, number>()
    const elsewhere = new Map<string, string>()
    for (const row of store.loadSessions(ids)) {
      const proc = row.facts.process
      if (!proc?.alive) continue
      // A pid means something only on the machine that saw it.
      if (row.device !== null && row.device !== deviceName()) elsewhere.set(row.id, row.device)
      else pids.set(row.id, proc.pid)
    }

    // Mark killed first: the process dying afterwards then changes nothing (rule 1 holds), so the
    // stream gets one "gone" line, not a "dead" transition followed by it.
    const now = clock()
    const cancelled = new Map<string, number>()
    const already = new Set<string>()
    const applied = applyTriage(store, {now, verb: 'kill', who: this.me}, ids, (row) => {
      // Killed already: nothing to file or undo, but a process that came back is still stopped.
      if (isKilled(row.records)) {
        already.add(row.id)
        return null
      }

      cancelled.set(row.id, row.records.triggers.oneShot + row.records.triggers.recurring)
      return {cancelSchedules: true, records: {filedAt: now, filing: 'killed', killedAt: now, snoozedUntil: null}}
    })
    const ended = new Map<string, Termination>()
    await Promise.all(
      [...pids].map(async ([id, pid]) => {
        ended.set(id, await terminate(pid, graceMs))
      }),
    )
    // Let the store see the processes gone (live: false) now rather than at the next sync.
    if (pids.size > 0) makeIngester(store, this.env, clock, this.me).recheckProcesses()

    const killed = ids.map((id) => {
      const t = ended.get(id)
      return {
        already: already.has(id),
        cancelled_schedules: cancelled.get(id) ?? 0,
        error: t?.error ?? null,
        id,
        pgid: t?.pgid ?? null,
        pid: pids.get(id) ?? null,
        processes: t?.processes ?? 0,
        short_id: shortId(id),
        signal: t?.signal ?? null,
        survivors: [...(t?.survivors ?? [])],
      }
    })
    const report = await this.report('kill', applied.action, ids, now, (row) => {
      const k = killed.find((x) => x.id === row.id)!
      const bits: string[] = []
      if (already.has(row.id)) bits.push('killed before')
      if (elsewhere.has(row.id)) bits.push(`its process runs on ${elsewhere.get(row.id)}: not signalled from here`)
      else if (k.pid === null) bits.push('no live process')
      else if (k.signal === null) bits.push(`pid ${k.pid} already gone`)
      else {
        const group = k.pgid === null ? `pid ${k.pid}` : `process group ${k.pgid}`
        bits.push(`${group}: ${k.processes} process${k.processes === 1 ? '' : 'es'} stopped by ${k.signal}`)
      }

      if (k.cancelled_schedules > 0) bits.push(`${k.cancelled_schedules} scheduled message${k.cancelled_schedules === 1 ? '' : 's'} cancelled`)
      return `killed (${bits.join('; ')})`
    }, new Set(ids))
    for (const k of killed) {
      if (k.survivors.length > 0) {
        process.stderr.write(`cast: ${k.short_id}: still running after SIGKILL: ${k.survivors.join(', ')}${k.error ? ` (${k.error})` : ''}\n`)
        process.exitCode = EXIT.FAILURE
      } else if (k.error) {
        process.stderr.write(`cast: ${k.short_id}: warning: ${k.error}\n`)
      }
    }

    return {...report, killed, verb: 'kill'}
  }
}
