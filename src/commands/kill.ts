import {Flags} from '@oclif/core'

import type {SessionRow, Store} from '../core/store/store.js'
import type {RemoteVerbJson} from '../lib/cli/base-command.js'
import {EXIT} from '../lib/base/exit-codes.js'
import {teamFlags} from '../lib/cli/flags.js'
import type {Plan, Termination} from '../lib/agents/terminate.js'
import {durationFlag} from '../lib/cli/time-flags.js'
import {TriageCommand} from '../lib/triage/triage.js'
import type {SessionJson} from '../lib/views/views.js'
import {verb} from '../core/model/verbs.js'
import {families} from '../core/store/families.js'

export interface KillJson {
  verb: 'kill'
  action: number | null
  dry_run: boolean
  killed: KilledJson[]
  sessions: SessionJson[]
}

/** One session of `cast kill --json`: what was signalled, refused, and cancelled. */
export interface KilledJson {
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
}

interface Planned {
  readonly pid: number
  readonly plan: Plan
}

/** What may be signalled per session, what may not and why, and which run on another machine. */
interface KillPlan {
  readonly plans: ReadonlyMap<string, readonly Planned[]>
  readonly refusedBy: ReadonlyMap<string, {pid: number; why: string}[]>
  readonly elsewhere: ReadonlyMap<string, string>
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
every pid signalled; --dry-run prints them and changes nothing. A session whose
process is live but that nothing could be signalled for is not filed: it stays
in the inbox, one line says why, and the exit code is 5.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> jhgmszz',
    {command: '<%= config.bin %> <%= command.id %> jhgmszz ou4gdp4 --grace 0', description: 'Kill two sessions, SIGKILL at once.'},
    {command: '<%= config.bin %> <%= command.id %> 6ovolyp --dry-run', description: 'Print which pids would be signalled; change nothing.'},
  ]
  static override flags = {
    ...teamFlags,
    'dry-run': Flags.boolean({summary: 'Print which processes would be signalled; signal nothing, file nothing.'}),
    grace: durationFlag({helpValue: 'D', summary: 'How long to wait after SIGTERM before SIGKILL (default 5s; 0 = at once).'}),
  }
  static override strict = false
  static override summary = verb('kill').summary
  static override usage = ['<%= command.id %> SESSION... [--grace D] [--dry-run]']

  async run(): Promise<KillJson | RemoteVerbJson> {
    const {argv, flags} = await this.parse(Kill)
    const queries = this.sessionArgs(argv)
    // One session on another machine of the team: its machine kills it.
    if (queries.length === 1 && !flags['dry-run']) {
      const remote = await this.remoteVerb('kill', queries[0]!, {}, flags)
      if (remote) return remote
    }

    const {clock, store} = await this.syncedStore()
    const {resolveSessions} = await import('../lib/base/resolve.js')
    const ids = resolveSessions(store, queries)
    const plan = await planKills(store, store.loadSessions(ids))
    if (flags['dry-run']) return this.dryRun(store, ids, plan)
    const refused = await this.unkillable(store, ids, plan)
    const rest = ids.filter((id) => !refused.includes(id))
    if (rest.length === 0)
      this.fail(refused.length === 1 ? this.refusals[0]! : `${this.refusals.join(' ')}`, EXIT.REFUSED, this.refusalHints)
    const out = await this.kill(store, clock, rest, plan, flags.grace ?? DEFAULT_GRACE_MS)
    // Some were killed, some not: say which were not, and exit 5.
    const {oneLine} = await import('../core/model/sanitize.js')
    for (const line of this.refusals) process.stderr.write(`cast: ${oneLine(line)}\n`)
    if (refused.length > 0) process.exitCode = EXIT.REFUSED
    return out
  }

  private refusals: string[] = []
  private refusalHints: string[] = []

  /**
   * Sessions whose process the store reads as live on this machine, but that no verified claim
   * lets cast signal: killing would signal nothing and file a running agent under Killed, out of
   * the inbox. They are left as they are (exit 5), each with one line saying why.
   */
  private async unkillable(store: Store, ids: readonly string[], {elsewhere, plans, refusedBy}: KillPlan): Promise<string[]> {
    const {shortId} = await import('../core/model/ids.js')
    const out: string[] = []
    for (const row of store.loadSessions(ids)) {
      const proc = row.facts.process
      if (!proc?.alive || elsewhere.has(row.id) || (plans.get(row.id) ?? []).length > 0) continue
      const why = (refusedBy.get(row.id) ?? []).map((r) => `pid ${r.pid}: ${r.why}`).join('; ') || `pid ${proc.pid} cannot be verified`
      out.push(row.id)
      this.refusals.push(
        `Session ${shortId(row.id)} was not killed: its process is live but nothing could be signalled (${why}). It stays in the inbox.`,
      )
      this.refusalHints = [
        `Stop it in its own terminal, then cast kill ${shortId(row.id)} files it; cast explain ${shortId(row.id)} shows the claims.`,
      ]
    }

    return out
  }

  /** File the sessions under Killed, signal what the plan verified, and report each. */
  private async kill(
    store: Store,
    clock: () => number,
    ids: readonly string[],
    {elsewhere, plans, refusedBy}: KillPlan,
    graceMs: number,
  ): Promise<KillJson> {
    const {makeIngester} = await import('../lib/ingest/ingest.js')
    const {applyTriage} = await families.triage()
    const {terminate} = await import('../lib/agents/terminate.js')
    const {shortId} = await import('../core/model/ids.js')
    const {planKill} = await import('../core/model/triage.js')
    // Mark killed first: the process dying afterwards then changes nothing (rule 1 holds), so the
    // stream gets one "gone" line, not a "dead" transition followed by it.
    const now = clock()
    const cancelled = new Map<string, number>()
    const already = new Set<string>()
    const applied = applyTriage(store, {now, verb: 'kill', who: this.me}, ids, (row) => {
      const change = planKill(row, now)
      // Killed already: nothing to file or undo, but a process that came back is still stopped.
      if (change === null) already.add(row.id)
      else cancelled.set(row.id, row.records.triggers.oneShot + row.records.triggers.recurring)
      return change
    })
    const ended = new Map<string, Termination[]>()
    await Promise.all(
      [...plans].map(async ([id, list]) => {
        ended.set(id, await Promise.all(list.map((p) => terminate(p.pid, p.plan, graceMs))))
      }),
    )
    // Let the store see the processes gone (live: false) now rather than at the next sync.
    if ([...plans.values()].some((l) => l.length > 0)) makeIngester(store, this.env, clock, this.me).recheckProcesses()

    const killed = ids.map((id): KilledJson => {
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
    const report = await this.report(
      'kill',
      applied.action,
      ids,
      now,
      (row) =>
        killedLine(
          killed.find((x) => x.id === row.id)!,
          elsewhere.get(row.id),
        ),
      new Set(ids),
    )
    for (const k of killed) {
      if (k.survivors.length > 0) {
        process.stderr.write(
          `cast: ${k.short_id}: still running after SIGKILL: ${k.survivors.join(', ')}${k.error ? ` (${k.error})` : ''}\n`,
        )
        process.exitCode = EXIT.FAILURE
      } else if (k.error) {
        process.stderr.write(`cast: ${k.short_id}: warning: ${k.error}\n`)
      }
    }

    return {...report, dry_run: false, killed, verb: 'kill'}
  }

  /** --dry-run: what would be signalled, nothing changed. */
  private async dryRun(store: Store, ids: readonly string[], {elsewhere, plans, refusedBy}: KillPlan): Promise<KillJson> {
    const {sessionJson, titleOf} = await import('../lib/views/views.js')
    const {shortId} = await import('../core/model/ids.js')
    const now = this.now()
    const rows = store.loadSessions(ids)
    const killed = ids.map((id): KilledJson => {
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
        for (const r of k.refused) bits.push(r.pid > 1 ? `pid ${r.pid} not signalled: ${r.why}` : `not signalled: ${r.why}`)
        this.log(`${k.short_id}  ${titleOf(row) ?? '(untitled)'}  dry run: ${bits.join('; ')}`)
      }
    }

    return {action: null, dry_run: true, killed, sessions: rows.map((r) => sessionJson(r, this.me, now)), verb: 'kill'}
  }
}

/**
 * For each session, the processes that may be signalled (verified claims: pid and start time)
 * and the claims that may not, with why; a session whose process runs on another machine of the
 * team is only named (a pid means something only on the machine that saw it). The decisions are
 * the model's (core/model/kill-plan.ts); this reads the claims and the processes they name.
 */
async function planKills(store: Store, rows: readonly SessionRow[]): Promise<KillPlan> {
  const {deviceName} = await import('../lib/home/env.js')
  const {checkClaims} = await import('../lib/agents/dialog.js')
  const {planTermination} = await import('../lib/agents/terminate.js')
  const {killedElsewhere, planSessionKill} = await import('../core/model/kill-plan.js')
  const plans = new Map<string, Planned[]>()
  const refusedBy = new Map<string, {pid: number; why: string}[]>()
  const elsewhere = new Map<string, string>()
  for (const row of rows) {
    const subject = {device: row.device, process: row.facts.process}
    const remote = killedElsewhere(subject, deviceName())
    if (remote !== null) {
      if (remote.device !== null) elsewhere.set(row.id, remote.device)
      continue
    }

    const claims = checkClaims(store, row)
    const terminations = claims.verified.map((claim) => ({claim, ...planTermination(claim.pid, claim.startedAt)}))
    const verified = terminations.map(({claim, plan, refusal}) => ({pid: claim.pid, refusal, targets: plan?.targets ?? null}))
    const decided = planSessionKill(
      subject,
      verified,
      claims.refused.map((r) => ({pid: r.claim.pid, why: r.why})),
    )
    plans.set(
      row.id,
      decided.planned.map((i) => ({pid: terminations[i]!.claim.pid, plan: terminations[i]!.plan!})),
    )
    refusedBy.set(row.id, [...decided.refused])
  }

  return {elsewhere, plans, refusedBy}
}

function strongest(ts: readonly Termination[]): Termination['signal'] {
  return ts.some((t) => t.signal === 'SIGKILL') ? 'SIGKILL' : ts.some((t) => t.signal === 'SIGTERM') ? 'SIGTERM' : null
}

/** The human line's "killed (…)" for one session. */
function killedLine(k: KilledJson, elsewhere: string | undefined): string {
  const bits: string[] = []
  if (k.already) bits.push('killed before')
  if (elsewhere !== undefined) bits.push(`its process runs on ${elsewhere}: not signalled from here`)
  else if (k.pid === null && k.refused.length === 0) bits.push('no live process')
  else if (k.pid !== null && k.signal === null) bits.push(`pid ${k.pid} already gone`)
  else if (k.signal !== null) bits.push(`${k.signal} to ${pidList(k.signalled)}`)
  for (const r of k.refused) bits.push(r.pid > 1 ? `pid ${r.pid} not signalled: ${r.why}` : `not signalled: ${r.why}`)
  if (k.cancelled_schedules > 0) bits.push(`${k.cancelled_schedules} scheduled message${k.cancelled_schedules === 1 ? '' : 's'} cancelled`)
  return `killed (${bits.join('; ')})`
}

function pidList(pids: readonly number[]): string {
  return `${pids.length === 1 ? 'pid' : 'pids'} ${pids.join(', ')}`
}
