/**
 * The answering verbs: approve and deny an open permission prompt, choose an option of an open
 * question (src/lib/agents/dialog-*.ts type the keys and check the screen), and answer a decision
 * card (src/lib/verbs/decide.ts). A question on a session with no live process has no dialog to
 * type into: its option goes in as the reply that resumes the session, the rule cast send uses.
 */
import {shortId} from '../../core/model/ids.js'
import type {DialogAnswer} from '../agents/dialog-answer.js'
import type {ChooseManyJson} from '../agents/dialog-ask-many.js'
import type {ChooseJson} from '../agents/dialog-choose.js'
import {CastError} from '../base/cast-error.js'
import {EXIT} from '../base/exit-codes.js'
import type {RemoteOutcome} from '../team/request.js'
import type {DecisionJson} from '../views/views.js'
import {remoteVerb} from './remote.js'
import {synced} from './triage.js'
import {done, refuse, refusal, type VerbContext, type VerbResult} from './types.js'

export async function approve(ctx: VerbContext, i: {session: string; always?: boolean}): Promise<VerbResult<DialogAnswer | RemoteOutcome>> {
  const remote = await remoteVerb(ctx, 'approve', i.session, {always: i.always === true})
  if (remote) return remote
  const {runDialogVerb} = await import('../agents/dialog-answer.js')
  const r = await runDialogVerb(ctx.store, ctx.env, ctx.clock, ctx.me, i.session, i.always ? 'approve_always' : 'approve', null)
  return done(r.answer, [r.line])
}

export async function deny(
  ctx: VerbContext,
  i: {session: string; note?: string | null},
): Promise<VerbResult<DialogAnswer | RemoteOutcome>> {
  const remote = await remoteVerb(ctx, 'deny', i.session, {note: i.note ?? null})
  if (remote) return remote
  const {runDialogVerb} = await import('../agents/dialog-answer.js')
  const r = await runDialogVerb(ctx.store, ctx.env, ctx.clock, ctx.me, i.session, 'deny', i.note ?? null)
  return done(r.answer, [r.line])
}

/** An option of a dead session's question, sent as its next turn (a headless resume). */
export interface ChoiceSentJson {
  choice: number
  label: string
  question: string
  session_id: string
  short_id: string
  /** How the option went in: the reply that resumes the session. */
  sent: {route: string; via: string; log: string | null}
}

export async function choose(
  ctx: VerbContext,
  i: {session: string; answers: readonly (readonly number[])[]},
): Promise<VerbResult<ChooseJson | ChooseManyJson | ChoiceSentJson>> {
  for (const a of i.answers)
    if (a.length === 0 || a.some((n) => !Number.isInteger(n) || n < 1))
      refuse(`"${a.join(',')}" is not an answer: an option number (1, 2, …), or numbers joined by commas (1,3).`, EXIT.USAGE)
  const sent = await replyToDeadQuestion(ctx, i.session, i.answers)
  if (sent) return sent
  const {chooseAnswers} = await import('../agents/dialog-choose.js')
  const r = await chooseAnswers(ctx.store, ctx.env, ctx.clock, ctx.me, i.session, i.answers)
  const line =
    'answers' in r
      ? `Answered ${r.answers.map((a) => `"${a.question}" with ${a.labels.join(', ')}`).join('; ')} in ${r.short_id} (tmux ${r.pane}; keys ${r.keys.join(' ')}): the dialog closed after ${r.closed_after_ms} ms.`
      : `Chose ${r.choice}. ${r.label} for "${r.question}" in ${r.short_id} (tmux ${r.pane}; keys ${r.keys.join(' ')}): the dialog closed after ${r.closed_after_ms} ms.`
  return done(r, [line])
}

/**
 * A single question whose session has no live process (no verified claim, not read live): no
 * dialog holds a terminal, so the option's label is sent as the reply, which resumes the session
 * headless (src/lib/agents/deliver.ts). Null when the dialog path applies.
 */
async function replyToDeadQuestion(
  ctx: VerbContext,
  query: string,
  answers: readonly (readonly number[])[],
): Promise<VerbResult<ChoiceSentJson> | null> {
  await synced(ctx)
  const {resolveSession} = await import('../base/resolve.js')
  const {checkClaims} = await import('../agents/dialog.js')
  const id = resolveSession(ctx.store, query)
  const row = ctx.store.loadSessions([id])[0]
  const q = row?.facts.question
  const n = answers.length === 1 && answers[0]?.length === 1 ? answers[0][0] : undefined
  if (!row || !q || q.questions || !q.choices || n === undefined) return null
  if (row.facts.process?.alive === true || checkClaims(ctx.store, row).verified.length > 0) return null
  const picked = q.choices[n - 1]
  if (!picked) return refuse(`The question has ${q.choices.length} options: choose 1 to ${q.choices.length}.`, EXIT.USAGE)
  const label = picked.label
  const {sendMessage} = await import('../agents/deliver.js')
  const r = await sendMessage(ctx.store, ctx.env, ctx.clock, ctx.me, id, label, {synced: true})
  const sid = shortId(id)
  return done({choice: n, label, question: q.text, sent: {log: r.log, route: r.route, via: r.via}, session_id: id, short_id: sid}, [
    `Its agent no longer runs: sent ${n}. ${label} to ${sid} as its reply via ${r.via}${r.log ? `; output in ${r.log}` : ''}.`,
  ])
}

/** `cast decide answer --json`: the answered card, and how the answer reached the agent. */
export interface AnswerJson {
  card: DecisionJson
  /** Sent into the session as its next turn (null: not sent). */
  delivered: {via: string} | null
  delivery_error: string | null
  /** A `cast decide --wait` was waiting and reads the answer itself. */
  waiting: boolean
}

/**
 * Answer a card. The answer is recorded first; when it then cannot reach the agent (no waiter,
 * and the send refused or failed), the result says so and carries a non-zero exit (the send's own:
 * 5 for a refusal, 1 for a failure), so a script can tell.
 */
export async function answer(
  ctx: VerbContext,
  i: {card: string; choice: string; note?: string | null},
): Promise<VerbResult<AnswerJson | RemoteOutcome>> {
  const remote = await remoteVerb(ctx, 'answer', i.card, {choice: i.choice, note: i.note ?? null})
  if (remote) return remote
  const {families} = await import('../../core/store/families.js')
  const {answerMessage, findCard, parseChoice} = await import('./decide.js')
  const {answerDecision, getDecision, waiterLeaseName} = await families.decisions()
  const {leaseIsLive} = await import('../ingest/ingest.js')
  const {decisionJson} = await import('../views/views.js')
  const store = ctx.store
  const card = findCard(store, i.card)
  if (card.answeredAt !== null) {
    const label = card.options[(card.answer ?? 0) - 1]?.label ?? '?'
    return refusal(`Card ${card.id} was already answered by ${card.answeredBy} (${card.answer}. ${label}).`, EXIT.REFUSED)
  }

  const choice = parseChoice(card, i.choice)
  if (choice === null) {
    const list = card.options.map((o, n) => `${n + 1}. ${o.label}`).join(', ')
    return refusal(`"${i.choice}" is not an option of ${card.id}: ${list}.`, EXIT.USAGE)
  }

  const note = i.note?.trim() || null
  if (!answerDecision(store, card.id, {at: ctx.clock(), by: ctx.me, choice, note}))
    return refusal(`Card ${card.id} was answered by someone else a moment ago.`, EXIT.REFUSED)
  const answered = getDecision(store, card.id)
  if (!answered) return refusal(`Card ${card.id} is no longer in the store.`, EXIT.NOT_FOUND)
  // Who gets the answer: a waiting `decide --wait` reads it itself; else it goes in as a turn.
  const confirmedAuto = card.auto && card.answer === choice
  const waiting = leaseIsLive(store.getLease(waiterLeaseName(card.id)))
  let delivered: {via: string} | null = null
  let deliveryError: string | null = null
  let exit: number = EXIT.OK
  if (!confirmedAuto && !waiting) {
    const {sendMessage} = await import('../agents/deliver.js')
    const message = answerMessage(card, choice, ctx.me, note, card.auto ? card.answer : null)
    try {
      const r = await sendMessage(store, ctx.env, ctx.clock, ctx.me, card.sessionId, message, {cause: `decision ${card.id}`})
      delivered = {via: r.via}
    } catch (error) {
      deliveryError = error instanceof Error ? error.message : String(error)
      exit = error instanceof CastError && error.exit !== EXIT.OK ? error.exit : EXIT.FAILURE
    }
  }

  const label = card.options[choice - 1]?.label ?? String(choice)
  const how = confirmedAuto
    ? 'confirmed the auto-decision'
    : waiting
      ? 'the waiting agent has it'
      : delivered
        ? `delivered via ${delivered.via}`
        : `not delivered: ${deliveryError}`
  const json = {card: decisionJson(answered), delivered, delivery_error: deliveryError, waiting}
  const line = `${card.id}: ${choice}. ${label} (${how})`
  if (exit !== EXIT.OK)
    return done(json, [line], {
      exit,
      warnings: [`The answer is recorded, but it did not reach session ${shortId(card.sessionId)}: ${deliveryError}`],
    })
  return done(json, [line])
}
