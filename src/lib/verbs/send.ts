/**
 * `cast send`'s rule: a message goes in as the session's next turn (typed into its tmux pane, or a
 * headless resume when no process lives: src/lib/agents/deliver.ts), or is held until the turn
 * ends (--queue: src/lib/agents/send-queue.ts).
 */
import {WORK_STATES, type WorkState} from '../../core/model/types.js'
import type {SessionRow} from '../../core/store/store.js'
import type {SendResult} from '../agents/deliver.js'
import {EXIT} from '../base/exit-codes.js'
import type {RemoteOutcome} from '../team/request.js'
import type {SessionJson} from '../views/views.js'
import {remoteVerb} from './remote.js'
import {synced} from './triage.js'
import {done, refuse, type VerbContext, type VerbDone, type VerbResult} from './types.js'

/** `cast send --json`: how the message went in, and the session after it. */
export interface SendJson {
  at: string
  log: SendResult['log']
  pane: SendResult['pane']
  pid: SendResult['pid']
  route: SendResult['route']
  session: SessionJson
  via: string
}

/** `cast send --queue --json` when the message is held. */
export interface QueuedJson {
  at: string
  /** A cast daemon (or cast web) holds the ingester lease now, so it will be delivered. */
  delivering: boolean
  id: string
  queued: true
  session: SessionJson
}

export type StateMatch = {state: WorkState; reason: string | null}

export interface SendInput {
  readonly session: string
  readonly message: string
  /** Send only when the session is in one of these states now (else exit 5). */
  readonly ifMatch?: readonly StateMatch[]
  /** The --if words as given, for the team branch. */
  readonly ifText?: readonly string[]
  readonly queue?: boolean
}

export async function send(ctx: VerbContext, i: SendInput): Promise<VerbResult<SendJson | QueuedJson | RemoteOutcome>> {
  if (i.message.trim() === '') refuse('The message is empty.', EXIT.USAGE)
  const {checkMessageText} = await import('../agents/message-text.js')
  const message = checkMessageText(i.message)
  const ifMatch = i.ifMatch ?? (i.ifText === undefined ? undefined : parseStateMatches(i.ifText.join(','), (m) => refuse(m, EXIT.USAGE)))
  if (i.queue) {
    if (ifMatch !== undefined) refuse('--queue waits for the turn to end; it does not take --if.', EXIT.USAGE)
    return queue(ctx, i.session, message)
  }

  const remote = await remoteVerb(ctx, 'send', i.session, {if: i.ifText ?? null, message})
  if (remote) return remote
  return sendNow(ctx, i.session, message, ifMatch, '')
}

async function sendNow(
  ctx: VerbContext,
  query: string,
  message: string,
  ifMatch: readonly StateMatch[] | undefined,
  lead: string,
): Promise<VerbDone<SendJson>> {
  await synced(ctx)
  const {resolveSession} = await import('../base/resolve.js')
  const {sendMessage} = await import('../agents/deliver.js')
  const {sessionJson} = await import('../views/views.js')
  const id = resolveSession(ctx.store, query)
  const r = await sendMessage(ctx.store, ctx.env, ctx.clock, ctx.me, id, message, {
    ifMatch: ifMatch ? [...ifMatch] : undefined,
    synced: true,
  })
  const json = sessionJson(r.row, ctx.me, ctx.clock())
  const line = `${lead}${lead ? 'sent' : 'Sent'} to ${json.short_id} via ${r.via}${r.log ? `; output in ${r.log}` : ''}. ${nowLine(r.route, r.row)}`
  return done({at: new Date(r.at).toISOString(), log: r.log, pane: r.pane, pid: r.pid, route: r.route, session: json, via: r.via}, [line])
}

/**
 * Where the session stands after the send. A headless resume starts the agent in the background:
 * the store still holds what it read before (an open question, a dead process) until the run
 * writes its first line, so that state is not reported as the session's now.
 */
function nowLine(route: SendResult['route'], row: SessionRow): string {
  if (route === 'headless') return 'It resumes headless: it reads working while that turn runs.'
  return `Now ${row.state}:${row.reason}.`
}

/** --queue: held until the turn ends, or sent now when it has. */
async function queue(ctx: VerbContext, query: string, message: string): Promise<VerbDone<SendJson | QueuedJson>> {
  await synced(ctx)
  const {resolveSession} = await import('../base/resolve.js')
  const {holdsMessage, queueMessage} = await import('../agents/send-queue.js')
  const {sessionJson} = await import('../views/views.js')
  const id = resolveSession(ctx.store, query)
  const row = ctx.store.loadSessions([id])[0]
  if (!row) return refuse(`Session ${id} is not in the store.`, EXIT.NOT_FOUND)
  if (!holdsMessage(row)) return sendNow(ctx, id, message, undefined, 'Its turn had ended: ')
  const q = queueMessage(ctx.env, id, message, ctx.me, ctx.clock())
  const json = sessionJson(row, ctx.me, ctx.clock())
  const {INGESTER_LEASE, leaseIsLive} = await import('../ingest/ingest.js')
  const delivering = leaseIsLive(ctx.store.getLease(INGESTER_LEASE))
  const lines = [`Queued ${q.id} for ${json.short_id} (${row.state}:${row.reason}): it goes in as its next turn when this one ends.`]
  if (!delivering) lines.push('No cast daemon (or cast web) runs now: it is delivered once one does.')
  return done({at: q.at, delivering, id: q.id, queued: true, session: json}, lines)
}

/** `needs_input:settled,done` → states with optional reasons; anything else is a usage error. */
export function parseStateMatches(text: string, fail: (message: string) => never): {state: WorkState; reason: string | null}[] {
  const out: {state: WorkState; reason: string | null}[] = []
  for (const part of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [state, reason, ...rest] = part.split(':')
    if (rest.length > 0 || (reason !== undefined && !/^[a-z_]+$/.test(reason.trim())))
      fail(`"${part}" is not STATE or STATE:REASON (e.g. needs_input:settled).`)
    const [first] = parseStates(state ?? '', fail)
    if (first === undefined) fail(`"${part}" names no state.`)
    out.push({reason: reason === undefined ? null : reason.trim(), state: first})
  }

  if (out.length === 0) fail(`--if needs a state: ${WORK_STATES.join(', ')}.`)
  return out
}

/** `needs_input,done` → the states; anything else is a usage error. */
export function parseStates(text: string, fail: (message: string) => never): WorkState[] {
  const words = text
    .split(',')
    .map((s) => s.trim().replace('-', '_'))
    .filter(Boolean)
  const states = words.map((s) => WORK_STATES.find((w) => w === s) ?? fail(`"${s}" is not a state; use ${WORK_STATES.join(', ')}.`))
  if (states.length === 0) fail(`--if needs a state: ${WORK_STATES.join(', ')}.`)
  return states
}
