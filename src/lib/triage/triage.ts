/**
 * What every triage verb shares: resolve all the sessions first, then one transaction that asks
 * the verb's pure plan (src/core/model/triage.ts) about each session, saves the undo history,
 * applies the change and reconciles, then one line per session.
 */
import type {TriagePlan, TriageRefusal} from '../../core/model/triage.js'
import type {SessionRow} from '../../core/store/store.js'
import {BaseCommand} from '../cli/base-command.js'
import {EXIT} from '../base/exit-codes.js'
import {listOf} from '../cli/lists.js'
import type {SessionJson} from '../views/views.js'
import type {RunnerVerb} from '../verbs/index.js'

export interface TriageResult {
  verb: string
  /** The undo history action, or null when nothing changed. */
  action: number | null
  sessions: SessionJson[]
}

export interface TriageOptions {
  /** What the human line says was done, per session ("snoozed until …"). */
  readonly done: (row: SessionRow) => string
}

/** The exit code of each kind of refusal. */
const REFUSAL_EXIT: Record<TriageRefusal['kind'], number> = {not_found: EXIT.NOT_FOUND, refused: EXIT.REFUSED, usage: EXIT.USAGE}

export abstract class TriageCommand extends BaseCommand {
  /**
   * Run a verb through the one runner (src/lib/verbs/index.ts) as the person at this terminal, and
   * render its result: its lines (or JSON), its warnings on stderr, its exit code; a refusal is
   * one line and its exit code. A session of another machine of `cast hosts` (`HOST:ID`) is the
   * runner's to send there (src/lib/verbs/fleet.ts).
   */
  protected async verb(name: RunnerVerb, input: unknown, wait: {'no-wait'?: boolean; timeout?: number} = {}): Promise<unknown> {
    const store = await this.openStore()
    const {runVerbData} = await import('../verbs/index.js')
    const {oneLine} = await import('../../core/model/sanitize.js')
    const r = await runVerbData({clock: this.clock(), env: this.env, fleet: true, me: this.me, store, team: true, wait}, name, input)
    if (!r.ok) {
      // The team branch's refusal: the action's JSON still goes out, the line to the person.
      if (r.json === undefined) this.fail(r.line, r.exit, [...r.hints])
      if (this.jsonEnabled()) process.stderr.write(`cast: ${oneLine(r.line)}\n`)
      else this.log(r.line)
      process.exitCode = r.exit
      return r.json
    }

    if (!this.jsonEnabled()) for (const line of r.lines) this.log(line)
    for (const line of r.warnings) process.stderr.write(`cast: ${oneLine(line)}\n`)
    if (r.exit !== 0) process.exitCode = r.exit
    return r.json
  }

  /** The session arguments: every positional argument is a session. */
  protected sessionArgs(argv: readonly unknown[], what = 'SESSION'): string[] {
    const list = listOf(argv)
    if (list.length === 0) this.fail(`Name at least one ${what} (an id, a native id or a unique prefix of 4+ characters).`, EXIT.USAGE)
    return list
  }

  /**
   * Resolve every query, then apply the verb's plan to each session in one transaction and
   * report. A plan that refuses any session fails the whole action: the transaction rolls back,
   * nothing changes.
   */
  protected async triage(
    verb: string,
    queries: readonly string[],
    plan: (row: SessionRow, now: number) => TriagePlan,
    options: TriageOptions,
  ): Promise<TriageResult> {
    const {clock, store} = await this.syncedStore()
    const {resolveSessions} = await import('../base/resolve.js')
    const {applyTriage} = await import('../../core/store/triage.js')
    const {isRefusal} = await import('../../core/model/triage.js')
    const ids = resolveSessions(store, queries)
    const now = clock()
    const applied = applyTriage(store, {now, verb, who: this.me}, ids, (row) => {
      const planned = plan(row, now)
      if (isRefusal(planned)) this.fail(planned.refused, REFUSAL_EXIT[planned.kind])
      return planned
    })
    return this.report(verb, applied.action, ids, now, options.done, new Set(applied.sessions))
  }

  /** Reload the sessions and print one line each: short id, title, what was done, where it is now. */
  protected async report(
    verb: string,
    action: number | null,
    ids: readonly string[],
    now: number,
    done: (row: SessionRow) => string,
    changed?: ReadonlySet<string>,
  ): Promise<TriageResult> {
    const store = await this.openStore()
    const {sessionJson, titleOf} = await import('../views/views.js')
    const {oneLine} = await import('../../core/model/sanitize.js')
    const {shortId} = await import('../../core/model/ids.js')
    const rows = store.loadSessions(ids)
    if (!this.jsonEnabled()) {
      for (const row of rows) {
        const what = changed && !changed.has(row.id) ? 'unchanged' : done(row)
        this.log(
          `${shortId(row.id)}  ${oneLine(titleOf(row) ?? '(untitled)')}  ${oneLine(what)} → ${row.bucket} (${row.state}:${row.reason})`,
        )
      }
    }

    return {action, sessions: rows.map((r) => sessionJson(r, this.me, now)), verb}
  }
}
