/**
 * What `cast decide` and `cast presence` share: parsing options, the presence in force and its
 * wait budget, and how a card reads in a terminal.
 */
import {formatAge} from '../../core/model/durations.js'
import {shortId} from '../../core/model/ids.js'
import {findDecision} from '../../core/store/decisions.js'
import {effectivePresence, getPresence} from '../../core/store/presence.js'
import type {DecisionCard, Store} from '../../core/store/store.js'
import {CastError} from '../base/cast-error.js'
import type {CastConfig, PresenceConfig} from '../home/config.js'
import {EXIT} from '../base/exit-codes.js'

export const MIN_OPTIONS = 2
export const MAX_OPTIONS = 9

/** `"Ship it :: 2 h of review"` → {label, effect}; the effect may be empty. */
export function parseOption(text: string): {label: string; effect: string} | null {
  const i = text.indexOf('::')
  const label = (i === -1 ? text : text.slice(0, i)).trim()
  const effect = i === -1 ? '' : text.slice(i + 2).trim()
  return label === '' ? null : {effect, label}
}

/** A choice typed by the person: an option number, or a label (any case). */
export function parseChoice(card: DecisionCard, typed: string): number | null {
  const t = typed.trim()
  if (/^\d+$/.test(t)) {
    const n = Number(t)
    return n >= 1 && n <= card.options.length ? n : null
  }

  const i = card.options.findIndex((o) => o.label.toLowerCase() === t.toLowerCase())
  return i === -1 ? null : i + 1
}

export interface PresenceInForce {
  readonly who: string
  readonly name: string
  /** How long a question may block, in ms; null = indefinitely. */
  readonly waitBudgetMs: number | null
  readonly instructions: string
  readonly since: number | null
  readonly until: number | null
  /** The presence name is not in the config (removed since it was set): treated as online. */
  readonly unknown: boolean
}

export function presenceFor(store: Store, config: Pick<CastConfig, 'presences'>, who: string, now: number): PresenceInForce {
  const p = effectivePresence(getPresence(store, who), now)
  const def: PresenceConfig | undefined = config.presences.find((x) => x.name === p.presence)
  return {
    instructions: def?.instructions ?? '',
    name: p.presence,
    since: p.since,
    unknown: def === undefined,
    until: p.until,
    waitBudgetMs: def?.waitBudgetMs ?? null,
    who,
  }
}

/**
 * How long a question to these people may block: null (indefinitely) if any of them has no
 * budget, else the longest budget among them.
 */
export function waitBudget(presences: readonly PresenceInForce[]): {budgetMs: number | null; binding: PresenceInForce | null} {
  let binding: PresenceInForce | null = null
  for (const p of presences) {
    if (p.waitBudgetMs === null) return {binding: null, budgetMs: null}
    if (binding === null || p.waitBudgetMs > binding.waitBudgetMs!) binding = p
  }

  return {binding, budgetMs: binding?.waitBudgetMs ?? null}
}

/** A card for a terminal: question, why, numbered options (recommended marked), answer. */
export function renderCard(card: DecisionCard, now: number): string {
  const lines = [
    `${card.id}  ${card.question}`,
    `   session ${shortId(card.sessionId)} · asked ${formatAge(now - card.askedAt)} by ${card.askedBy}`,
  ]
  if (card.why) for (const l of card.why.split('\n')) lines.push(`   why: ${l}`)
  for (const [i, o] of card.options.entries()) {
    const mark = card.recommend === i + 1 ? ' (recommended)' : ''
    lines.push(`   ${i + 1}. ${o.label}${o.effect ? ` :: ${o.effect}` : ''}${mark}`)
  }

  if (card.answer !== null) {
    const label = card.options[card.answer - 1]?.label ?? '?'
    const who = card.answeredBy ?? '?'
    if (card.auto && card.answeredAt === null)
      lines.push(`   auto-decided ${card.answer}. ${label} — ${card.answerNote ?? ''} (awaiting your review)`)
    else
      lines.push(
        `   answered ${card.answer}. ${label} by ${who}${card.auto ? ' (after an auto-decision)' : ''}${card.answerNote ? ` — ${card.answerNote}` : ''}`,
      )
  }

  return lines.join('\n')
}

/** The message an answer is delivered as, when the session did not wait for it. */
export function answerMessage(card: DecisionCard, choice: number, by: string, note: string | null, overrode: number | null): string {
  const o = card.options[choice - 1]!
  const head =
    overrode === null
      ? `Answer to your question "${card.question}"`
      : `${by} changed your auto-decision on "${card.question}" (you took ${overrode}. ${card.options[overrode - 1]?.label ?? '?'})`
  return `${head}: ${choice}. ${o.label}${o.effect ? ` (${o.effect})` : ''}${note ? `. Note from ${by}: ${note}` : ''}`
}

/** Resolve a card id or unique prefix: exit 3 when none matches, exit 4 when several do. */
export function findCard(store: Store, query: string): DecisionCard {
  const r = findDecision(store, query)
  if (r.kind === 'one') return r.card
  if (r.kind === 'many') throw new CastError(`"${query}" matches several cards; type more of the id: ${r.ids.join(', ')}`, EXIT.AMBIGUOUS)
  const hint = query.trim().length < 4 ? ' (a prefix needs at least 4 characters)' : ''
  throw new CastError(`No decision card matches "${query}"${hint}.`, EXIT.NOT_FOUND, ['List the open ones with: cast decide list'])
}
