/** Undo (the last triage action of the person acting) and own (add an owner: a handoff). */
import {EXIT} from '../base/exit-codes.js'
import type {RemoteOutcome} from '../team/request.js'
import type {SessionJson} from '../views/views.js'
import {remoteVerb} from './remote.js'
import {synced, triage, type TriageResult} from './triage.js'
import {done, refuse, type VerbContext, type VerbDone, type VerbResult} from './types.js'

export interface HistoryJson {
  action: number
  at: string
  who: string
  verb: string
  sessions: string[]
  undone_at: string | null
}

export function historyJson(a: {
  action: number
  at: number
  who: string
  verb: string
  sessions: readonly string[]
  undoneAt: number | null
}): HistoryJson {
  return {
    action: a.action,
    at: new Date(a.at).toISOString(),
    sessions: [...a.sessions],
    undone_at: a.undoneAt === null ? null : new Date(a.undoneAt).toISOString(),
    verb: a.verb,
    who: a.who,
  }
}

export async function undo(ctx: VerbContext): Promise<VerbDone<{undone: HistoryJson; sessions: SessionJson[]}>> {
  const {families} = await import('../../core/store/families.js')
  const {undoLast} = await families.triage()
  const {shortId} = await import('../../core/model/ids.js')
  const {sessionJson, titleOf} = await import('../views/views.js')
  const {humanTime} = await import('../base/time-format.js')
  const {oneLine} = await import('../../core/model/sanitize.js')
  await synced(ctx)
  const now = ctx.clock()
  const undone = undoLast(ctx.store, ctx.me, now)
  if (undone === null) refuse(`Nothing to undo: ${ctx.me} has no triage action left in the history.`, EXIT.NOT_FOUND, ['cast undo --list'])
  const rows = ctx.store.loadSessions(undone.sessions)
  const lines = [`undid #${undone.action} ${undone.verb} (${humanTime(undone.at, now)})`]
  for (const row of rows)
    lines.push(`${shortId(row.id)}  ${oneLine(titleOf(row) ?? '(untitled)')}  → ${row.bucket} (${row.state}:${row.reason})`)
  if (undone.verb === 'kill') lines.push('The card is back; the agent stays stopped (cast send restarts it).')
  return done({sessions: rows.map((r) => sessionJson(r, ctx.me, now)), undone: historyJson(undone)}, lines)
}

/** Add an owner (default: the person acting); WHO is checked against the team list when the config names one. */
export async function own(ctx: VerbContext, i: {session: string; who?: string | null}): Promise<VerbResult<TriageResult | RemoteOutcome>> {
  const {loadConfig, resolveIdentity} = await import('../home/config.js')
  const {isOwnedBy} = await import('../../core/model/ownership.js')
  const {planOwn} = await import('../../core/model/triage.js')
  const who = resolveIdentity(await loadConfig(ctx.env), i.who ?? ctx.me)
  const remote = await remoteVerb(ctx, 'own', i.session, {who})
  if (remote) return remote
  return triage(
    ctx,
    'own',
    [i.session],
    (row) => planOwn(row, who),
    (row) => (isOwnedBy(row.records.owners, who) ? `owned by ${row.records.owners.join(', ')}` : 'unchanged'),
  )
}
