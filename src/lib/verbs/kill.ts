/**
 * `cast kill`'s rule: which processes a kill may signal (verified claims only: core/model/kill-plan.ts
 * decides), what it files, and what it refuses. Runs for every front-end (src/lib/verbs/index.ts).
 */
import type {SessionRow, Store} from '../../core/store/store.js'
import {families} from '../../core/store/families.js'
import type {Plan, Termination} from '../agents/terminate.js'
import {EXIT} from '../base/exit-codes.js'
import type {RemoteOutcome} from '../team/request.js'
import type {SessionJson} from '../views/views.js'
import {remoteVerb} from './remote.js'
import {report as triageReport, resolveAll, synced} from './triage.js'
import {done, refusal, type VerbContext, type VerbDone, type VerbResult} from './types.js'

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
  /** Running pids named by a claim without a start time: the process may be the agent's, unverified. */
  readonly unverified: ReadonlyMap<string, number[]>
}

const DEFAULT_GRACE_MS = 5000

export interface KillInput {
  readonly sessions: readonly string[]
  readonly dryRun?: boolean
  /** How long to wait after SIGTERM before SIGKILL (ms; default 5 s). */
  readonly graceMs?: number
}

/**
 * `cast kill`: file the sessions under Killed and stop what a verified claim lets cast signal. A
 * session whose process lives (the store reads it live, or a claim cast could not verify names a
 * running pid) but that nothing could be signalled for is not filed: one line says why, exit 5.
 */
export async function kill(ctx: VerbContext, i: KillInput): Promise<VerbResult<KillJson | RemoteOutcome>> {
  // One session on another machine of the team: its machine kills it.
  const one = i.sessions.length === 1 ? i.sessions[0] : undefined
  if (one !== undefined && !i.dryRun) {
    const remote = await remoteVerb(ctx, 'kill', one, {})
    if (remote) return remote
  }

  await synced(ctx)
  const ids = await resolveAll(ctx, i.sessions)
  const plan = await planKills(ctx.store, ctx.store.loadSessions(ids))
  if (i.dryRun) return dryRun(ctx, ids, plan)
  const refused = await unkillable(ctx, ids, plan)
  const rest = ids.filter((id) => !refused.some((r) => r.id === id))
  if (rest.length === 0) return refusal(refused.map((r) => r.line).join(' '), EXIT.REFUSED, refused.at(-1)?.hints ?? [])
  const out = await killNow(ctx, rest, plan, i.graceMs ?? DEFAULT_GRACE_MS)
  // Some were killed, some not: say which were not, and exit 5.
  if (refused.length === 0) return out
  return done(out.json, out.lines, {exit: EXIT.REFUSED, warnings: [...refused.map((r) => r.line), ...out.warnings]})
}

interface Unkillable {
  readonly id: string
  readonly line: string
  readonly hints: readonly string[]
}

/**
 * Sessions whose process is live on this machine, but that no verified claim lets cast signal:
 * killing would signal nothing and file a running agent under Killed, out of the inbox.
 */
async function unkillable(
  ctx: VerbContext,
  ids: readonly string[],
  {elsewhere, plans, refusedBy, unverified}: KillPlan,
): Promise<Unkillable[]> {
  const {shortId} = await import('../../core/model/ids.js')
  const out: Unkillable[] = []
  for (const row of ctx.store.loadSessions(ids)) {
    const proc = row.facts.process
    const running = unverified.get(row.id) ?? []
    if ((!proc?.alive && running.length === 0) || elsewhere.has(row.id) || (plans.get(row.id) ?? []).length > 0) continue
    const why =
      (refusedBy.get(row.id) ?? []).map((r) => `pid ${r.pid}: ${r.why}`).join('; ') || `pid ${proc?.pid ?? running[0]} cannot be verified`
    const id = shortId(row.id)
    out.push({
      hints: [`Stop it in its own terminal, then cast kill ${id} files it; cast explain ${id} shows the claims.`],
      id: row.id,
      line: `Session ${id} was not killed: its process is live but nothing could be signalled (${why}). It stays in the inbox.`,
    })
  }

  return out
}

/** File the sessions under Killed, signal what the plan verified, and report each. */
async function killNow(
  ctx: VerbContext,
  ids: readonly string[],
  {elsewhere, plans, refusedBy}: KillPlan,
  graceMs: number,
): Promise<VerbDone<KillJson>> {
  const {makeIngester} = await import('../ingest/ingest.js')
  const {applyTriage} = await families.triage()
  const {terminate} = await import('../agents/terminate.js')
  const {shortId} = await import('../../core/model/ids.js')
  const {planKill} = await import('../../core/model/triage.js')
  // Mark killed first: the process dying afterwards then changes nothing (rule 1 holds), so the
  // stream gets one "gone" line, not a "dead" transition followed by it.
  const now = ctx.clock()
  const cancelled = new Map<string, number>()
  const already = new Set<string>()
  const applied = applyTriage(ctx.store, {now, verb: 'kill', who: ctx.me}, ids, (row) => {
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
  if ([...plans.values()].some((l) => l.length > 0)) makeIngester(ctx.store, ctx.env, ctx.clock, ctx.me).recheckProcesses()

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
  const byId = new Map(killed.map((k) => [k.id, k]))
  const report = await triageReport(
    ctx,
    'kill',
    applied.action,
    ids,
    now,
    (row) => killedLine(byId.get(row.id), elsewhere.get(row.id)),
    new Set(ids),
  )
  const warnings: string[] = []
  let exit: number = EXIT.OK
  for (const k of killed) {
    if (k.survivors.length > 0) {
      warnings.push(`${k.short_id}: still running after SIGKILL: ${k.survivors.join(', ')}${k.error ? ` (${k.error})` : ''}`)
      exit = EXIT.FAILURE
    } else if (k.error) warnings.push(`${k.short_id}: warning: ${k.error}`)
  }

  return done({...report.json, dry_run: false, killed, verb: 'kill'}, report.lines, {exit, warnings})
}

/** --dry-run: what would be signalled, nothing changed. */
async function dryRun(ctx: VerbContext, ids: readonly string[], {elsewhere, plans, refusedBy}: KillPlan): Promise<VerbDone<KillJson>> {
  const {sessionJson, titleOf} = await import('../views/views.js')
  const {shortId} = await import('../../core/model/ids.js')
  const now = ctx.clock()
  const rows = ctx.store.loadSessions(ids)
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
  const byId = new Map(killed.map((k) => [k.id, k]))
  const lines = rows.map((row) => {
    const k = byId.get(row.id)
    const bits: string[] = []
    if (elsewhere.has(row.id)) bits.push(`its process runs on ${elsewhere.get(row.id)}: not signalled from here`)
    else if (k && k.signalled.length > 0) bits.push(`would send SIGTERM to ${pidList(k.signalled)}`)
    else if (!k || k.refused.length === 0) bits.push('no live process: would only file it under Killed')
    for (const r of k?.refused ?? []) bits.push(r.pid > 1 ? `pid ${r.pid} not signalled: ${r.why}` : `not signalled: ${r.why}`)
    return `${shortId(row.id)}  ${titleOf(row) ?? '(untitled)'}  dry run: ${bits.join('; ')}`
  })
  return done({action: null, dry_run: true, killed, sessions: rows.map((r) => sessionJson(r, ctx.me, now)), verb: 'kill'}, lines)
}

/**
 * For each session, the processes that may be signalled (verified claims: pid and start time)
 * and the claims that may not, with why; a session whose process runs on another machine of the
 * team is only named (a pid means something only on the machine that saw it). The decisions are
 * the model's (core/model/kill-plan.ts); this reads the claims and the processes they name.
 */
async function planKills(store: Store, rows: readonly SessionRow[]): Promise<KillPlan> {
  const {deviceName} = await import('../home/env.js')
  const {checkClaims} = await import('../agents/dialog.js')
  const {isRunning, planTermination} = await import('../agents/terminate.js')
  const {killedElsewhere, planSessionKill} = await import('../../core/model/kill-plan.js')
  const plans = new Map<string, Planned[]>()
  const refusedBy = new Map<string, {pid: number; why: string}[]>()
  const elsewhere = new Map<string, string>()
  const unverified = new Map<string, number[]>()
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
      decided.planned.flatMap((i) => {
        const t = terminations[i]
        return t?.plan ? [{pid: t.claim.pid, plan: t.plan}] : []
      }),
    )
    refusedBy.set(row.id, [...decided.refused])
    const running = claims.refused.filter((r) => typeof r.claim.startedAt !== 'number' && r.claim.pid > 1 && isRunning(r.claim.pid))
    unverified.set(row.id, [...new Set(running.map((r) => r.claim.pid))])
  }

  return {elsewhere, plans, refusedBy, unverified}
}

function strongest(ts: readonly Termination[]): Termination['signal'] {
  return ts.some((t) => t.signal === 'SIGKILL') ? 'SIGKILL' : ts.some((t) => t.signal === 'SIGTERM') ? 'SIGTERM' : null
}

/** The human line's "killed (…)" for one session. */
function killedLine(k: KilledJson | undefined, elsewhere: string | undefined): string {
  const bits: string[] = []
  if (!k) return 'killed'
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
