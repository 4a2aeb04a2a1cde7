/**
 * A verb on a teammate's session: the server queued it on the team's signed action path
 * (src/lib/web/team-action.ts) for the machine that runs the agent; the page follows it until
 * that machine reports. Nothing reads as delivered before it confirmed.
 */
import {get, type Outcome} from './api.js'
import {oneLine} from './dom.js'

/** A verb queued for the machine that runs the session. */
export interface Queued {
  action_id: number
  device: string
}

/** The queued action in a verb's answer (`cast VERB --no-wait --json` on a teammate's session), or null. */
export function teamAction(json: unknown): Queued | null {
  const o = json as (Partial<Queued> & {status?: unknown}) | null
  return o && typeof o.action_id === 'number' && typeof o.device === 'string' && o.status === 'queued'
    ? {action_id: o.action_id, device: o.device}
    : null
}

const DONE: Record<string, string> = {approve: 'approved', deny: 'denied', kill: 'killed', reply: 'sent'}

/**
 * What the executing machine reported: long polls /api/action/ID; stops watching (not the action)
 * after six minutes, past the signature's five-minute expiry (src/lib/team/protocol.ts MAX_EXPIRY_MS).
 */
export async function awaitOutcome(verb: string, q: Queued): Promise<Outcome> {
  const where = oneLine(q.device, 60)
  const until = Date.now() + 6 * 60_000
  for (;;) {
    const r = await get(`/api/action/${q.action_id}?wait=20000`)
    if (!r.ok) return {ok: false, text: `Not confirmed: ${r.error.message}`}
    const st = r.json as {status: string; line: string}
    if (st.status === 'delivered') return {ok: true, text: `${DONE[verb] ?? 'done'} on ${where}`}
    if (st.status === 'refused') return {ok: false, text: `Refused by ${where}: ${oneLine(st.line, 400)}`}
    if (Date.now() > until) return {ok: false, text: `Not confirmed: ${where} did not answer; the request expires unanswered`}
  }
}
