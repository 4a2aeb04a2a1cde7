/**
 * The team branch of a verb (src/lib/team/request.ts): when the query names a session (or, for
 * "answer", a card) that runs on another machine of the team, the action is queued there and its
 * outcome is this verb's result; null when it is this machine's (or no team, or the context acts
 * locally only, as the executing machine does).
 */
import type {ActionVerb} from '../team/protocol.js'
import type {RemoteOutcome} from '../team/request.js'
import {done, refusal, type VerbContext, type VerbResult} from './types.js'

export async function remoteVerb(
  ctx: VerbContext,
  verb: ActionVerb,
  query: string,
  args: Readonly<Record<string, unknown>>,
): Promise<VerbResult<RemoteOutcome> | null> {
  if (!ctx.team || ctx.env.CAST_TEAM_LOCAL === '1') return null
  const {remoteVerb: queue} = await import('../team/request.js')
  const r = await queue(ctx.store, ctx.env, ctx.me, {args, query, verb}, ctx.wait ?? {})
  if (!r) return null
  const json: RemoteOutcome = {...r.json}
  return r.exit === 0 ? done(json, [r.line]) : refusal(r.line, r.exit, [], json)
}
