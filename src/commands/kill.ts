import {Flags} from '@oclif/core'

import {EXIT} from '../lib/exit-codes.js'
import {teamFlags} from '../lib/flags.js'
import type {Termination} from '../lib/terminate.js'
import {TriageCommand} from '../lib/triage.js'
import type {SessionJson} from '../lib/views.js'

export interface KillJson {
  verb: 'kill'
  action: number | null
  dry_run: boolean
  killed: {
    id: string
    /** It was killed before this command: only a process that came back was stopped. */
    already: boolean
    short_id: string
    /** The verified process signalled first (null: none). */
    pid: number | null
    pgid: null
    signal: 'SIGTERM' | 'SIGKILL' | null
    processes: number
    /** Every pid signalled (with --dry-run: every pid that would be). */
    signalled: number[]
    /** Claims on a process that were not signalled, and why (no start time, pid reuse, pid ≤ 1, shared). */
    refused: {pid: number; why: string}[]
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
card back, not the process.

Only a process whose identity is verified is signalled: its pid and start time
equal what the agent's registry, lock or the screen sweep recorded (a claim
without a start time is not verified), never pid 1 or below, never cast itself
or one of its ancestors, never a process other sessions claim too (a shared
daemon). The walk covers that process's descendants only. The output names
every pid signalled; --dry-run prints them and changes nothing.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> jhgmszz',
    {command: '<%= config.bin %> <%= command.id %> jhgmszz ou4gdp4 --grace 0', description: 'Kill two sessions, SIGKILL at once.'},
    {command: '<%= config.bin %> <%= command.id %> 6ovolyp --dry-run', description: 'Print which pids would be signalled; change nothing.'},
  ]
  static override flags = {
    ...teamFlags,
    'dry-run': Flags.boolean({summary: 'Print which processes would be signalled; signal nothing, file nothing.'}),
    grace: Flags.string({helpValue: 'D', summary: 'How long to wait after SIGTERM before SIGKILL (default 5s; 0 = at once).'}),
  }
  static override strict = false
  static override summary = 'Kill sessions: stop the agent, file them under Killed.'
  static override usage = ['<%= command.id %> SESSION... [--grace D] [--dry-run]']

  async run(): Promise<KillJson> {
    const {argv, flags} = await this.parse(Kill)
    const queries = this.sessionArgs(argv)
    // One session on another machine of the team: its machine kills it (issue 17).
    if (queries.length === 1 && !flags['dry-run']) {
      const remote = await this.remoteVerb('kill', queries[0]!, {}, flags)
      if (remote) return remote as unknown as KillJson
    }

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
    const {checkClaims} = await import('../lib/dialog.js')
    const {planTermination} = await import('../lib/terminate.js')
    type Planned = {pid: number; plan: import('../lib/terminate.js').Plan}
    const plans = new Map<string, Planned[]>()
    const refusedBy = new Map<string, {pid: number; why: string}[]>()
    const elsewhere = new Map<string, string>()
    for (const row of store.loadSessions(ids)) {
      // A pid means something only on the machine that saw it.
      if (row.device !== null && row.device !== deviceName()) {
        if (row.facts.process?.alive) elsewhere.set(row.id, row.device)
        continue
      }

      const claims = checkClaims(store, row)
      const refused = claims.refused.map((r) => ({pid: r.claim.pid, why: r.why}))
      const planned: Planned[] = []
      for (const claim of claims.verified) {
        if (planned.some((p) => p.plan.targets.includes(claim.pid))) continue
        const {plan, refusal} = planTermination(claim.pid, claim.startedAt)
        if (plan === null) refused.push({pid: claim.pid, why: refusal!})
        else planned.push({pid: claim.pid, plan})
      }

      // A process the store reads as live that no verified claim backs is named too.
      const proc = row.facts.process
      if (proc?.alive && !planned.some((p) => p.plan.targets.includes(proc.pid)) && !refused.some((r) => r.pid === proc.pid)) {
        refused.push({pid: proc.pid, why: `no claim with a start time names pid ${proc.pid}, so its identity cannot be verified`})
      }

      plans.set(row.id, planned)
      refusedBy.set(row.id, refused)
    }

    if (flags['dry-run']) return this.dryRun(store, ids, plans, refusedBy, elsewhere, shortId)

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
    const ended = new Map<string, Termination[]>()
    await Promise.all(
      [...plans].map(async ([id, list]) => {
        ended.set(id, await Promise.all(list.map((p) => terminate(p.pid, p.plan, graceMs))))
      }),
    )
    // Let the store see the processes gone (live: false) now rather than at the next sync.
    if ([...plans.values()].some((l) => l.length > 0)) makeIngester(store, this.env, clock, this.me).recheckProcesses()

    const strongest = (ts: readonly Termination[]): Termination['signal'] =>
      ts.some((t) => t.signal === 'SIGKILL') ? 'SIGKILL' : ts.some((t) => t.signal === 'SIGTERM') ? 'SIGTERM' : null
    const killed = ids.map((id) => {
      const ts = ended.get(id) ?? []
      const signalled = [...new Set(ts.flatMap((t) => t.signalled))]
      return {
        already: already.has(id),
        cancelled_schedules: cancelled.get(id) ?? 0,
        error: ts.find((t) => t.error)?.error ?? null,
        id,
        pgid: null,
        pid: plans.get(id)?.[0]?.pid ?? null,
        processes: signalled.length,
        refused: refusedBy.get(id) ?? [],
        short_id: shortId(id),
        signal: strongest(ts),
        signalled,
        survivors: ts.flatMap((t) => [...t.survivors]),
      }
    })
    const report = await this.report('kill', applied.action, ids, now, (row) => {
      const k = killed.find((x) => x.id === row.id)!
      const bits: string[] = []
      if (already.has(row.id)) bits.push('killed before')
      if (elsewhere.has(row.id)) bits.push(`its process runs on ${elsewhere.get(row.id)}: not signalled from here`)
      else if (k.pid === null && k.refused.length === 0) bits.push('no live process')
      else if (k.pid !== null && k.signal === null) bits.push(`pid ${k.pid} already gone`)
      else if (k.signal !== null) bits.push(`${k.signal} to ${pidList(k.signalled)}`)
      for (const r of k.refused) bits.push(`pid ${r.pid} not signalled: ${r.why}`)
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

    return {...report, dry_run: false, killed, verb: 'kill'}
  }

  /** --dry-run: what would be signalled, nothing changed. */
  private async dryRun(
    store: import('../core/store/store.js').Store,
    ids: readonly string[],
    plans: ReadonlyMap<string, readonly {pid: number; plan: import('../lib/terminate.js').Plan}[]>,
    refusedBy: ReadonlyMap<string, {pid: number; why: string}[]>,
    elsewhere: ReadonlyMap<string, string>,
    shortId: (id: string) => string,
  ): Promise<KillJson> {
    const {sessionJson, titleOf} = await import('../lib/views.js')
    const now = this.now()
    const rows = store.loadSessions(ids)
    const killed = ids.map((id) => {
      const list = plans.get(id) ?? []
      const signalled = [...new Set(list.flatMap((p) => p.plan.targets))]
      return {
        already: false,
        cancelled_schedules: 0,
        error: null,
        id,
        pgid: null,
        pid: list[0]?.pid ?? null,
        processes: signalled.length,
        refused: refusedBy.get(id) ?? [],
        short_id: shortId(id),
        signal: null,
        signalled,
        survivors: [],
      }
    })
    if (!this.jsonEnabled()) {
      for (const row of rows) {
        const k = killed.find((x) => x.id === row.id)!
        const bits: string[] = []
        if (elsewhere.has(row.id)) bits.push(`its process runs on ${elsewhere.get(row.id)}: not signalled from here`)
        else if (k.signalled.length > 0) bits.push(`would send SIGTERM to ${pidList(k.signalled)}`)
        else if (k.refused.length === 0) bits.push('no live process: would only file it under Killed')
        for (const r of k.refused) bits.push(`pid ${r.pid} not signalled: ${r.why}`)
        this.log(`${k.short_id}  ${titleOf(row) ?? '(untitled)'}  dry run: ${bits.join('; ')}`)
      }
    }

    return {action: null, dry_run: true, killed, sessions: rows.map((r) => sessionJson(r, this.me, now)), verb: 'kill'}
  }
}

function pidList(pids: readonly number[]): string {
  return `${pids.length === 1 ? 'pid' : 'pids'} ${pids.join(', ')}`
}
