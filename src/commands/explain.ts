import {Args} from '@oclif/core'

import type {Classification} from '../core/model/types.js'
import type {ExplainFact, ExplainJson} from '../core/model/wire.js'
import type {FileRow, SessionRow} from '../core/store/store.js'
import {BaseCommand} from '../lib/cli/base-command.js'
import {humanTime} from '../lib/base/time-format.js'

/** `cast explain --json` (src/core/model/wire.ts, the one declaration the library shares). */
export type {ExplainFact, ExplainJson} from '../core/model/wire.js'

export default class Explain extends BaseCommand {
  static override args = {session: Args.string({description: 'Session id, native id, or a unique prefix (4+ characters).', required: true})}
  static override description = `Shows how cast reached its answer for one session: every fact with the file, byte offset,
hook event or process it came from; each rule of the classifier in order and whether it
decided; the state, reason and bucket; when the answer could next change on its own; and the
files read for it with their parse errors.`
  static override examples = ['<%= config.bin %> <%= command.id %> grjaguv', '<%= config.bin %> <%= command.id %> grjaguv --json']
  static override summary = 'Explain why a session is in its state.'

  async run(): Promise<ExplainJson> {
    const {args} = await this.parse(Explain)
    const {clock, store} = await this.syncedStore({}, true)
    if (store.stale) {
      const {staleLine} = await import('../lib/views/sessions-list.js')
      process.stderr.write(staleLine(store.home) + '\n')
    }

    const {resolveSession} = await import('../lib/base/resolve.js')
    const {sessionJson} = await import('../lib/views/views.js')
    const {classifyWorkState} = await import('../core/model/work-state.js')
    const {restOf} = await import('../lib/ingest/classifier.js')
    const {holdsJson, holdsLines, treeOf} = await import('../lib/views/holds-view.js')
    const {parkLine} = await import('../lib/views/park-view.js')
    const {shortId} = await import('../core/model/ids.js')
    const id = resolveSession(store, args.session)
    const now = clock()
    const row = store.loadSessions([id])[0]!
    const c = classifyWorkState({children: row.children, facts: row.facts, records: row.records}, now)
    const files = store.filesFor(row.agent, row.nativeId)
    // Rule 7's rest verdict: which of declaration / classifier / fallback decided it.
    const rest = await restOf(store, row, c.reason, this.env, c.rule)
    const {SCHEMA_VERSION} = await import('../core/model/wire.js')
    const result: ExplainJson = {
      schema: SCHEMA_VERSION,
      bucket: row.bucket,
      rest,
      chain: c.chain.map((e) => ({matched: e.matched, note: e.note, rule: e.rule})),
      facts: factsOf(row),
      files: files.map((x) => ({kind: x.kind, offset: x.offset, parse_errors: x.parseErrors, path: x.path, size: x.size})),
      next_check_at: c.nextCheckAt === null ? null : new Date(c.nextCheckAt).toISOString(),
      reason: c.reason,
      records: row.records,
      rule: c.rule,
      session: sessionJson(row, this.me, now),
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
    if (!this.jsonEnabled()) {
      const lines = [...explainLines(result, row, c, files, now), '', ...holdsLines(result.holds, treeOf(row), now)]
      const park = parkLine(row.park, now)
      if (park !== null) lines.push('', `Park: ${park}`)
      await this.logFitted(lines.join('\n'))
    }
    return result
  }
}

/** Every fact cast holds for the session, with the source that said it. */
function factsOf(row: SessionRow): ExplainFact[] {
  const f = row.facts
  const fact = (name: string, value: unknown, sourceKey = name): ExplainFact => ({
    fact: name,
    source: f.sources[sourceKey] ?? null,
    value,
  })
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
      // No process: the source may say why none is read (src/core/ingest/recompose.ts unseenWriter).
      source: f.process?.source ?? f.sources['process'] ?? null,
      value: f.process ? {alive: f.process.alive, pid: f.process.pid, status: f.process.status} : null,
    },
    fact('parent', f.parentNativeId, 'parentNativeId'),
  ].map((x) => ({
    ...x,
    source: x.source ?? (x.value === null || x.value === 0 || x.value === false ? null : {kind: 'derived', ref: 'default'}),
  }))
}

/** The human explanation: the answer, each fact and its source, the rules in order, the files read. */
function explainLines(result: ExplainJson, row: SessionRow, c: Classification, files: readonly FileRow[], now: number): string[] {
  const s = result.session
  const lines = [
    `${s.short_id}  ${s.title ?? '(untitled)'}  [${row.agent} ${row.nativeId}]`,
    `state ${c.state} · reason ${c.reason} · rule ${c.rule} · bucket ${row.bucket}`,
    `next check: ${humanTime(c.nextCheckAt, now, 'none (changes only on new input)')}`,
    '',
    'Facts:',
  ]
  for (const x of result.facts) {
    const v =
      x.fact === 'last_activity_at' && typeof x.value === 'string'
        ? humanTime(x.value, now)
        : typeof x.value === 'object' && x.value !== null
          ? JSON.stringify(x.value)
          : String(x.value)
    const src = x.source
    const where = src ? `${src.kind}: ${src.ref}${src.offset === undefined ? '' : ` @${src.offset}`}` : '-'
    lines.push(`  ${x.fact.padEnd(17)} ${v.length > 70 ? v.slice(0, 67) + '...' : v}`, `  ${''.padEnd(17)} ↳ ${where}`)
  }

  lines.push('', 'Rules:')
  for (const e of c.chain) lines.push(`  ${e.matched ? '→' : ' '} ${e.rule}. ${e.note}`)
  if (result.rest !== null) lines.push('', `Rest verdict: decided by ${result.rest.decided_by} — ${result.rest.note}`)
  lines.push('', 'Files:')
  if (files.length === 0) lines.push('  (none)')
  for (const x of files) lines.push(`  ${x.path}  ${x.kind}, ${x.offset}/${x.size} bytes read, ${x.parseErrors} malformed line(s) skipped`)
  return lines
}
