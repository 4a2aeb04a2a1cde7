import type {ProcessFacts, SessionFacts} from '../model/types.js'
import {EMPTY_FACTS} from '../model/types.js'
import type {CheckedContribution} from './adapter.js'

/**
 * The default merge of every contribution for one session: lower priority first, each defined
 * fact overrides; sources merge; parse errors add up. The live process claim with the highest
 * priority becomes `process` (a live one beats a dead one of the same priority).
 */
export function composeFacts(contributions: readonly CheckedContribution[]): SessionFacts {
  const sorted = [...contributions].sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0))
  let facts: SessionFacts = EMPTY_FACTS
  let sources: Record<string, SessionFacts['sources'][string]> = {}
  let parseErrors = 0
  for (const c of sorted) {
    const defined = Object.fromEntries(Object.entries(c.facts).filter(([, v]) => v !== undefined)) as Partial<SessionFacts>
    facts = {...facts, ...defined}
    sources = {...sources, ...c.facts.sources}
    parseErrors += c.facts.parseErrors ?? 0
  }

  const process = bestProcess(sorted)
  return {...facts, parseErrors, process: process ?? facts.process, sources}
}

export function bestProcess(contributions: readonly CheckedContribution[]): ProcessFacts | null {
  let best: {p: ProcessFacts; prio: number} | null = null
  for (const c of contributions) {
    if (!c.processClaim) continue
    const claim = c.processClaim
    const p: ProcessFacts = {
      alive: c.processAlive === true,
      exited: c.processAlive === true ? null : 'crash',
      heartbeatAt: claim.heartbeatAt,
      pid: claim.pid,
      source: claim.source,
      status: claim.status,
    }
    const prio = (c.priority ?? 0) + (p.alive ? 0.5 : 0)
    if (!best || prio >= best.prio) best = {p, prio}
  }

  return best?.p ?? null
}
