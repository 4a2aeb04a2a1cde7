/**
 * Put one OpenCode session together from what its sources said.
 *
 * A database contribution is complete on its own (db.ts summarizes the session in one go); when
 * both the database and lingering storage/ files know a session (1.2 migrates the files into the
 * database and leaves them), the database wins, and with several databases (release channels) the
 * one with the latest activity. Storage contributions are one record each (session, message,
 * active tool part) and are summarized here with the same function.
 */
import type {CheckedContribution} from '../../core/ingest/adapter.js'
import {EMPTY_FACTS} from '../../core/model/types.js'
import type {FactSource, SessionFacts} from '../../core/model/types.js'
import {factsOf, storageRecord} from './facts.js'
import {summarize} from './model.js'
import type {OcMessage, OcPart, OcSession} from './model.js'

export function composeOpencode(nativeId: string, contributions: readonly CheckedContribution[]): SessionFacts {
  return withLogApproval(composeFiles(nativeId, contributions), contributions)
}

/**
 * A permission the log says is pending (log.ts), over a turn the files say is still going (the
 * tool part waiting for it reads `running`). A settled turn has no pending permission.
 */
function withLogApproval(facts: SessionFacts, contributions: readonly CheckedContribution[]): SessionFacts {
  if (facts.settled || facts.approval !== null) return facts
  const log = contributions.map((c) => factsOf(c, 'log')).find((l) => l?.approval)
  const a = log?.approval
  if (!log || !a) return facts
  const source: FactSource = {kind: 'log', offset: a.offset, ref: typeof log.ref === 'string' ? log.ref : 'log/opencode.log'}
  return {...facts, approval: {at: a.at, source, text: a.text}, sources: {...facts.sources, approval: source}}
}

function composeFiles(nativeId: string, contributions: readonly CheckedContribution[]): SessionFacts {
  const fromDb = contributions.filter((c) => factsOf(c, 'db') !== null)
  if (fromDb.length > 0) {
    let best = fromDb[0]!
    for (const c of fromDb) if ((c.facts.lastActivityAt ?? 0) > (best.facts.lastActivityAt ?? 0)) best = c
    return {...EMPTY_FACTS, ...best.facts}
  }

  const sessionC = contributions.map((c) => storageRecord(c, 'session')).find((r) => r !== null) ?? null
  const session: OcSession = sessionC?.session ?? {
    archived: null,
    compacting: null,
    created: null,
    directory: null,
    id: nativeId,
    model: null,
    parentId: null,
    title: null,
    updated: null,
    version: null,
  }
  const paths = new Map<string, string>()
  const messages: OcMessage[] = []
  const parts: OcPart[] = []
  for (const c of contributions) {
    const message = storageRecord(c, 'message')
    const part = storageRecord(c, 'part')
    if (message?.message) {
      const m = message.message
      messages.push(m)
      if (typeof message.ref === 'string' && message.ref) paths.set(`message:${m.id}`, message.ref)
    } else if (part?.part) {
      const p = part.part
      parts.push(p)
      if (typeof part.ref === 'string' && part.ref) paths.set(`part:${p.id}`, part.ref)
    }
  }

  const sessionRef = typeof sessionC?.ref === 'string' ? sessionC.ref : ''
  const at = (key: string): FactSource => ({kind: 'storage', ref: paths.get(key) ?? sessionRef})
  const summary = summarize({
    firstPrompt: null,
    messages,
    parseErrors: contributions.reduce((n, c) => n + (c.facts.parseErrors ?? 0), 0),
    parts,
    refs: {message: (id) => at(`message:${id}`), part: (id) => at(`part:${id}`), session: () => ({kind: 'storage', ref: sessionRef})},
    session,
  })
  return summary.facts
}
