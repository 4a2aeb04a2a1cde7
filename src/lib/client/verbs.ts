/**
 * The verbs the library and `cast mcp` carry out, one function each, over the same lib functions
 * the commands call (src/commands/send.ts, schedule/index.ts, decide/index.ts): the one place
 * where both front-ends reach the verbs' internals. Everything here is oclif-free.
 */
import type {WorkState} from '../../core/model/types.js'
import {WORK_STATES} from '../../core/model/types.js'
import type {Store} from '../../core/store/store.js'
import {EXIT} from '../base/exit-codes.js'
import type {Env} from '../home/env.js'
import type {ScheduleJson} from '../agents/deliver.js'
import type {DecisionJson, SessionJson} from '../views/json-shapes.js'
import {CastError} from './errors.js'

/** What every verb runs with: the open store, the environment, the clock and who acts. */
export interface VerbContext {
  readonly store: Store
  readonly env: Env
  readonly clock: () => number
  readonly me: string
}

/** `cast send --json` when the message went in. */
export interface SendJson {
  at: string
  log: string | null
  pane: string | null
  pid: number | null
  route: 'tmux' | 'headless'
  session: SessionJson
  via: string
}

/** `cast send --queue --json` when the message is held until the turn ends. */
export interface QueuedJson {
  at: string
  delivering: boolean
  id: string
  queued: true
  session: SessionJson
}

export interface SendInput {
  readonly id: string
  readonly text: string
  /** `needs_input`, `needs_input:settled`, …: send only in one of these (else REFUSED, nothing sent). */
  readonly ifState?: readonly string[]
  readonly queue?: boolean
  /** Who the sends log records (default: the context's me). */
  readonly who?: string
  /** A note in front of the route in the sends log. */
  readonly cause?: string
}

/** `needs_input:settled` → {state, reason}; anything else is a USAGE error (as `cast send --if`). */
export function parseStateMatch(text: string): {state: WorkState; reason: string | null} {
  const [rawState, reason, ...rest] = text.trim().split(':')
  const state = (rawState ?? '').trim().replace('-', '_')
  if (!(WORK_STATES as readonly string[]).includes(state))
    throw new CastError(`"${text}" is not a state; use ${WORK_STATES.join(', ')} (optionally :REASON).`, EXIT.USAGE)
  if (rest.length > 0 || (reason !== undefined && !/^[a-z_]+$/.test(reason.trim())))
    throw new CastError(`"${text}" is not STATE or STATE:REASON (e.g. needs_input:settled).`, EXIT.USAGE)
  return {reason: reason === undefined ? null : reason.trim(), state: state as WorkState}
}

/**
 * `cast send ID TEXT [--if S] [--queue]` for a session already resolved: the text checked as data
 * (src/lib/agents/message-text.ts), then typed into its pane or resumed headless, or held.
 */
export async function sendToSession(ctx: VerbContext, input: SendInput): Promise<SendJson | QueuedJson> {
  const {checkMessageText} = await import('../agents/message-text.js')
  const {sessionJson} = await import('../views/views.js')
  if (input.text.trim() === '') throw new CastError('The message is empty.', EXIT.USAGE)
  const message = checkMessageText(input.text)
  const ifMatch = input.ifState?.length ? input.ifState.map((s) => parseStateMatch(s)) : undefined
  const {clock, env, me, store} = ctx
  if (input.queue) {
    if (ifMatch) throw new CastError('queue waits for the turn to end; it does not take if_state.', EXIT.USAGE)
    const {holdsMessage, queueMessage} = await import('../agents/send-queue.js')
    const row = store.loadSessions([input.id])[0]
    if (row && holdsMessage(row)) {
      const q = queueMessage(env, input.id, message, input.who ?? me, clock())
      const {INGESTER_LEASE, leaseIsLive} = await import('../ingest/lease.js')
      return {
        at: q.at,
        delivering: leaseIsLive(store.getLease(INGESTER_LEASE)),
        id: q.id,
        queued: true,
        session: sessionJson(row, me, clock()),
      }
    }
  }

  const {sendMessage} = await import('../agents/deliver.js')
  const r = await sendMessage(store, env, clock, me, input.id, message, {
    ...(input.cause ? {cause: input.cause} : {}),
    ifMatch,
    synced: true,
    ...(input.who ? {who: input.who} : {}),
  })
  return {
    at: new Date(r.at).toISOString(),
    log: r.log,
    pane: r.pane,
    pid: r.pid,
    route: r.route,
    session: sessionJson(r.row, me, clock()),
    via: r.via,
  }
}

export interface ScheduleInput {
  readonly id: string
  readonly text: string
  /** Epoch ms. */
  readonly at: number
  readonly everyMs?: number | null
}

/** `cast schedule ID --at T TEXT`: the message is delivered by the ingester's holder (or `cast snooze sweep`) when due. */
export async function scheduleMessage(ctx: VerbContext, input: ScheduleInput): Promise<ScheduleJson> {
  const {checkMessageText} = await import('../agents/message-text.js')
  if (input.text.trim() === '') throw new CastError('The message is empty.', EXIT.USAGE)
  const message = checkMessageText(input.text)
  if (!Number.isFinite(input.at)) throw new CastError('The time to deliver at is not a time.', EXIT.USAGE)
  const {createSchedule} = await import('../../core/store/schedules.js')
  const {scheduleJson} = await import('../agents/deliver.js')
  const now = ctx.clock()
  const s = createSchedule(ctx.store, {
    createdAt: now,
    createdBy: ctx.me,
    dueAt: input.at,
    everyMs: input.everyMs ?? null,
    message,
    sessionId: input.id,
  })
  return scheduleJson(s)
}

/** The limits `cast decide` keeps (src/commands/decide/index.ts). */
export const MAX_QUESTION = 2000
export const MAX_OPTION = 500
export const MAX_WHY = 8000

export interface DecisionInput {
  readonly sessionId: string
  readonly question: string
  /** "LABEL :: cost or effect", or the two parts. */
  readonly options: readonly (string | {readonly label: string; readonly effect?: string})[]
  /** 1-based. */
  readonly recommend?: number | null
  readonly why?: string | null
  /** The process that will block on the answer (its waiter lease is taken with the card). */
  readonly waiter?: {readonly pid: number; readonly host: string}
}

/** `cast decide QUESTION --option …`: a decision card on the session; it files under Questions. */
export async function postDecisionCard(ctx: VerbContext, input: DecisionInput): Promise<DecisionJson> {
  const {MAX_OPTIONS, MIN_OPTIONS, parseOption} = await import('../verbs/decide.js')
  const {checkPlainText} = await import('./own.js')
  const question = input.question.trim()
  if (question === '') throw new CastError('The question is empty.', EXIT.USAGE)
  // A card is read by a person on every front-end: no escape, bidi override or other control in it.
  checkPlainText(question, 'The question')
  if (question.length > MAX_QUESTION)
    throw new CastError(`The question is ${question.length} characters; keep it under ${MAX_QUESTION}.`, EXIT.USAGE)
  const options = input.options.map((o) => {
    const text = typeof o === 'string' ? o : o.effect ? `${o.label} :: ${o.effect}` : o.label
    if (text.length > MAX_OPTION) throw new CastError(`An option is ${text.length} characters; keep each under ${MAX_OPTION}.`, EXIT.USAGE)
    checkPlainText(text, 'An option')
    return parseOption(text) ?? fail(`Option "${text}" has no label; write "LABEL :: effect".`)
  })
  if (options.length < MIN_OPTIONS || options.length > MAX_OPTIONS)
    throw new CastError(`A decision takes ${MIN_OPTIONS} to ${MAX_OPTIONS} options; got ${options.length}.`, EXIT.USAGE)
  const seen = new Set<string>()
  for (const o of options) {
    const k = o.label.toLowerCase()
    if (seen.has(k)) throw new CastError(`Two options are labelled "${o.label}"; labels must differ.`, EXIT.USAGE)
    seen.add(k)
  }

  const recommend = input.recommend ?? null
  if (recommend !== null && (!Number.isInteger(recommend) || recommend < 1 || recommend > options.length))
    throw new CastError(`recommend ${recommend}: there are only ${options.length} options.`, EXIT.USAGE)
  const why = input.why?.replace(/\s+$/, '') || null
  if ((why?.length ?? 0) > MAX_WHY) throw new CastError(`The reasoning is ${why!.length} characters; keep it under ${MAX_WHY}.`, EXIT.USAGE)
  if (why !== null) checkPlainText(why, 'The reasoning')
  const {postDecision} = await import('../../core/store/decisions.js')
  const {decisionJson} = await import('../views/views.js')
  const card = postDecision(ctx.store, {
    askedAt: ctx.clock(),
    askedBy: ctx.me,
    options,
    question,
    recommend,
    sessionId: input.sessionId,
    waiter: input.waiter,
    why,
  })
  return decisionJson(card)
}

function fail(message: string): never {
  throw new CastError(message, EXIT.USAGE)
}
