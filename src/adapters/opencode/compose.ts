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
import {summarize} from './model.js'
import type {OcMessage, OcPart, OcSession} from './model.js'

function record(c: CheckedContribution): string | null {
  return typeof c.extra?.record === 'string' ? c.extra.record : null
}

export function composeOpencode(nativeId: string, contributions: readonly CheckedContribution[]): SessionFacts {
  return withLogApproval(composeFiles(nativeId, contributions), contributions)
}

/**
 * A permission the log says is pending (log.ts), over a turn the files say is still going (the
 * tool part waiting for it reads `running`). A settled turn has no pending permission.
 */
function withLogApproval(facts: SessionFacts, contributions: readonly CheckedContribution[]): SessionFacts {
  if (facts.settled || facts.approval !== null) return facts
  const log = contributions.find((c) => c.extra?.opencode === 'log' && c.extra.approval)
  if (!log) return facts
  const a = log.extra!.approval as {at: number; offset: number; text: string}
  const source: FactSource = {kind: 'log', offset: a.offset, ref: typeof log.extra!.ref === 'string' ? log.extra!.ref : 'log/opencode.log'}
  return {...facts, approval: {at: a.at, source, text: a.text}, sources: {...facts.sources, approval: source}}
}

function composeFiles(nativeId: string, contributions: readonly CheckedContribution[]): SessionFacts {
  const fromDb = contributions.filter((c) => c.extra?.opencode === 'db')
  if (fromDb.length > 0) {
    let best = fromDb[0]!
    for (const c of fromDb) if ((c.facts.lastActivityAt ?? 0) > (best.facts.lastActivityAt ?? 0)) best = c
    return {...EMPTY_FACTS, ...best.facts}
  }

  const sessionC = contributions.find((c) => record(c) === 'session')
  const session: OcSession = (sessionC?.extra?.session as OcSession | undefined) ?? {
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
    const ref = typeof c.extra?.ref === 'string' ? c.extra.ref : null
    if (record(c) === 'message' && c.extra?.message) {
      const m = c.extra.message as OcMessage
      messages.push(m)
      if (ref) paths.set(`message:${m.id}`, ref)
    } else if (record(c) === 'part' && c.extra?.part) {
      const p = c.extra.part as OcPart
      parts.push(p)
      if (ref) paths.set(`part:${p.id}`, ref)
    }
  }

  const sessionRef = typeof sessionC?.extra?.ref === 'string' ? sessionC.extra.ref : ''
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
