/**
 * Waiting for a decision card's answer, as `cast decide --wait` does (src/commands/decide/index.ts):
 * the waiter lease is held while it waits (the answer then comes back here, not typed into the
 * session), and while the person's presence has a wait budget the recommended option (else the
 * first) is taken once the card has waited that long.
 */
import {hostname} from 'node:os'

import {EXIT} from '../base/exit-codes.js'
import type {DecisionJson} from '../views/json-shapes.js'
import {CastError} from './errors.js'
import type {VerbContext} from './verbs.js'

const POLL_MS = 250

export interface WaitForAnswerOptions {
  /** ms; on timeout: CastError TIMEOUT, the card stays open. */
  readonly timeout?: number
  readonly signal?: AbortSignal
  /** Called about every poll with how long it has waited (ms). */
  readonly onProgress?: (waitedMs: number) => void
}

export async function waitForAnswer(ctx: VerbContext, cardId: string, options: WaitForAnswerOptions): Promise<DecisionJson> {
  const {autoDecide, getDecision, waiterLeaseName} = await import('../../core/store/decisions.js')
  const {presenceFor, waitBudget} = await import('../verbs/decide.js')
  const {loadConfig} = await import('../home/config.js')
  const {decisionJson} = await import('../views/views.js')
  const {oneLine} = await import('../../core/model/sanitize.js')
  const {clock, me, store} = ctx
  if (getDecision(store, cardId) === null) throw new CastError(`No decision card "${oneLine(cardId.slice(0, 80))}".`, EXIT.NOT_FOUND)
  const config = await loadConfig(ctx.env)
  const lease = waiterLeaseName(cardId)
  const started = performance.now()
  store.acquireLease(lease, {host: hostname(), pid: process.pid}, Date.now(), () => true)
  try {
    for (;;) {
      const card = getDecision(store, cardId)!
      if (card.answer !== null) return decisionJson(card)
      const now = clock()
      const row = store.loadSessions([card.sessionId])[0]
      const people = row && row.records.owners.length > 0 ? row.records.owners : [row?.runner ?? me]
      const {binding, budgetMs} = waitBudget(people.map((who) => presenceFor(store, config, who, now)))
      const waited = Math.max(now - card.askedAt, performance.now() - started)
      if (budgetMs !== null && binding !== null && waited >= budgetMs) {
        const choice = card.recommend ?? 1
        const label = card.options[choice - 1]?.label ?? '?'
        const why = card.recommend === null ? 'no option was recommended, so the first' : 'the recommended option'
        autoDecide(store, cardId, {
          at: now,
          by: `${me} (auto)`,
          choice,
          note: `${binding.who} was ${binding.name}; took ${choice}. ${label} (${why})`,
        })
        continue
      }

      const elapsed = performance.now() - started
      if ((options.timeout !== undefined && elapsed >= options.timeout) || options.signal?.aborted)
        throw new CastError(`No answer to ${cardId} within ${Math.round(elapsed / 1000)} s; the card stays open.`, EXIT.TIMEOUT, [
          `Wait again later, or read it with: cast decide show ${cardId}`,
        ])
      options.onProgress?.(elapsed)
      store.heartbeatLease(lease, process.pid, Date.now())
      await new Promise((resolve) => setTimeout(resolve, POLL_MS))
    }
  } finally {
    store.releaseLease(lease, process.pid)
  }
}
