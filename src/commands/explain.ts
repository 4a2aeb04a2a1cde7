import {Args} from '@oclif/core'

import {BaseCommand} from '../lib/base-command.js'

export default class Explain extends BaseCommand {
  static override args = {session: Args.string({description: 'Session id, native id, or a unique prefix (4+ characters).', required: true})}
  static override description = `Shows how cast reached its answer for one session: every fact with the file, byte offset,
hook event or process it came from; each rule of the classifier in order and whether it
decided; the state, reason and bucket; when the answer could next change on its own; and the
files read for it with their parse errors.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> grjaguv',
    '<%= config.bin %> <%= command.id %> grjaguv --json',
  ]
  static override summary = 'Explain why a session is in its state.'

  async run(): Promise<Record<string, unknown>> {
    const {args} = await this.parse(Explain)
    const store = await this.openStore()
    const clock = this.clock()
    const {syncBeforeRead} = await import('../lib/ingest.js')
    const {resolveSession} = await import('../lib/resolve.js')
    const {sessionJson} = await import('../lib/views.js')
    const {classifyWorkState} = await import('../core/model/work-state.js')
    syncBeforeRead(store, this.env, clock, this.me)
    const id = resolveSession(store, args.session)
    const now = clock()
    const row = store.loadSessions([id])[0]!
    const c = classifyWorkState({children: row.children, facts: row.facts, records: row.records}, now)
    const f = row.facts
    const files = store.filesFor(row.agent, row.nativeId)
    const fact = (name: string, value: unknown, sourceKey = name): {fact: string; value: unknown; source: unknown} => ({
      fact: name,
      source: f.sources[sourceKey] ?? null,
      value,
    })
    const facts = [
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
      fact('queued', f.queued),
      {
        fact: 'process',
        source: f.process?.source ?? null,
        value: f.process ? {alive: f.process.alive, pid: f.process.pid, status: f.process.status} : null,
      },
      fact('parent', f.parentNativeId, 'parentNativeId'),
    ].map((x) => ({
      ...x,
      source: x.source ?? (x.value === null || x.value === 0 || x.value === false ? null : {kind: 'derived', ref: 'default'}),
    }))
    // Rule 7's rest verdict: which of declaration / classifier / fallback decided it (issue 14).
    const {restOf} = await import('../lib/classifier.js')
    const rest = await restOf(store, row, c.reason, this.env)
    const result = {
      bucket: row.bucket,
      rest,
      chain: c.chain.map((e) => ({matched: e.matched, note: e.note, rule: e.rule})),
      facts,
      files: files.map((x) => ({kind: x.kind, offset: x.offset, parse_errors: x.parseErrors, path: x.path, size: x.size})),
      next_check_at: c.nextCheckAt === null ? null : new Date(c.nextCheckAt).toISOString(),
      reason: c.reason,
      records: row.records,
      rule: c.rule,
      session: sessionJson(row, this.me, now),
      state: c.state,
    }
    if (!this.jsonEnabled()) {
      const s = result.session
      this.log(`${s.short_id}  ${s.title ?? '(untitled)'}  [${row.agent} ${row.nativeId}]`)
      this.log(`state ${c.state} · reason ${c.reason} · rule ${c.rule} · bucket ${row.bucket}`)
      const {humanTime} = await import('../lib/time-format.js')
      this.log(`next check: ${humanTime(c.nextCheckAt, now, 'none (changes only on new input)')}`)
      this.log('')
      this.log('Facts:')
      for (const x of facts) {
        const v = x.fact === 'last_activity_at' && typeof x.value === 'string' ? humanTime(x.value, now) : typeof x.value === 'object' && x.value !== null ? JSON.stringify(x.value) : String(x.value)
        const src = x.source as {kind: string; ref: string; offset?: number} | null
        const where = src ? `${src.kind}: ${src.ref}${src.offset === undefined ? '' : ` @${src.offset}`}` : '-'
        this.log(`  ${x.fact.padEnd(17)} ${v.length > 70 ? v.slice(0, 67) + '...' : v}`)
        this.log(`  ${''.padEnd(17)} ↳ ${where}`)
      }

      this.log('')
      this.log('Rules:')
      for (const e of c.chain) this.log(`  ${e.matched ? '→' : ' '} ${e.rule}. ${e.note}`)
      if (rest !== null) {
        this.log('')
        this.log(`Rest verdict: decided by ${rest.decided_by} — ${rest.note}`)
      }

      this.log('')
      this.log('Files:')
      if (files.length === 0) this.log('  (none)')
      for (const x of files) this.log(`  ${x.path}  ${x.kind}, ${x.offset}/${x.size} bytes read, ${x.parseErrors} malformed line(s) skipped`)
    }

    return result
  }
}
