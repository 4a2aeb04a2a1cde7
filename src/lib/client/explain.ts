/**
 * `cast explain --json` for the library and `cast mcp`: every fact with its source, the rule
 * chain, the answer and the files read. The same shape the command builds
 * (src/commands/explain.ts ExplainJson), from the same lib and core functions.
 */
import {type ExplainFact, type ExplainJson, SCHEMA_VERSION} from '../../core/model/wire.js'
import type {SessionRow, Store} from '../../core/store/store.js'
import type {Env} from '../home/env.js'

export type {ExplainFact, ExplainJson} from '../../core/model/wire.js'

export async function explainSession(store: Store, env: Env, id: string, me: string, now: number): Promise<ExplainJson> {
  const {sessionJson} = await import('../views/views.js')
  const {classifyWorkState} = await import('../../core/model/work-state.js')
  const {restOf} = await import('../ingest/classifier.js')
  const {holdsJson} = await import('../views/holds-view.js')
  const {shortId} = await import('../../core/model/ids.js')
  const row = store.loadSessions([id])[0]!
  const c = classifyWorkState({children: row.children, facts: row.facts, records: row.records}, now)
  const files = store.filesFor(row.agent, row.nativeId)
  return {
    schema: SCHEMA_VERSION,
    bucket: row.bucket,
    rest: await restOf(store, row, c.reason, env, c.rule),
    chain: c.chain.map((e) => ({matched: e.matched, note: e.note, rule: e.rule})),
    facts: factsOf(row),
    files: files.map((x) => ({kind: x.kind, offset: x.offset, parse_errors: x.parseErrors, path: x.path, size: x.size})),
    next_check_at: c.nextCheckAt === null ? null : new Date(c.nextCheckAt).toISOString(),
    reason: c.reason,
    records: row.records,
    rule: c.rule,
    session: sessionJson(row, me, now),
    state: c.state,
    holds: holdsJson(row, store.loadSessions([...row.childIds]), shortId),
    park: row.park
      ? {
          ended: row.park.ended,
          ended_at: row.park.endedAt === null ? null : new Date(row.park.endedAt).toISOString(),
          made_at: new Date(row.park.madeAt).toISOString(),
          note: row.park.note,
          until: row.park.untilId,
        }
      : null,
    ...(store.stale ? {stale: true as const} : {}),
  }
}

function factsOf(row: SessionRow): ExplainFact[] {
  const f = row.facts
  const fact = (name: string, value: unknown, sourceKey = name): ExplainFact => ({fact: name, source: f.sources[sourceKey] ?? null, value})
  return [
    fact('cwd', f.cwd),
    fact('title', row.renamed ?? f.title, row.renamed ? 'renamed' : 'title'),
    fact('model', f.model),
    fact('messages', f.messages),
    fact('turn_index', f.turnIndex, 'turnIndex'),
    fact('settled', f.settled),
    fact('last_activity_at', f.lastActivityAt === null ? null : new Date(f.lastActivityAt).toISOString(), 'lastActivityAt'),
    fact('question', f.question?.text ?? null),
    fact('approval', f.approval?.text ?? null),
    fact('error', f.error?.text ?? null),
    fact('background_work', f.backgroundWork, 'backgroundWork'),
    fact('background_done_at', f.backgroundDoneAt == null ? null : new Date(f.backgroundDoneAt).toISOString(), 'backgroundDoneAt'),
    fact('queued', f.queued),
    {
      fact: 'process',
      source: f.process?.source ?? f.sources['process'] ?? null,
      value: f.process ? {alive: f.process.alive, pid: f.process.pid, status: f.process.status} : null,
    },
    fact('parent', f.parentNativeId, 'parentNativeId'),
  ].map((x) => ({
    ...x,
    source: x.source ?? (x.value === null || x.value === 0 || x.value === false ? null : {kind: 'derived', ref: 'default'}),
  }))
}
