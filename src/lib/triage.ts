/**
 * What every triage verb shares: resolve all the sessions first, then one transaction that saves
 * the undo history, applies the change and reconciles, then one line per session.
 */
import type {SessionRow} from '../core/store/store.js'
import type {TriageChange} from '../core/store/triage.js'
import {BaseCommand} from './base-command.js'
import {EXIT} from './exit-codes.js'
import {listOf} from './lists.js'
import type {SessionJson} from './views.js'

export interface TriageResult {
  verb: string
  /** The undo history action, or null when nothing changed. */
  action: number | null
  sessions: SessionJson[]
}

export interface TriageOptions {
  /** A reason to refuse the whole action (exit 5) because of this session, or null. */
  readonly refuse?: (row: SessionRow, now: number) => string | null
  /** The exit code of a refusal (default 5, refused). */
  readonly refuseExit?: number
  /** What the human line says was done, per session ("snoozed until …"). */
  readonly done: (row: SessionRow) => string
}

export abstract class TriageCommand extends BaseCommand {
  /** The session arguments: every positional argument is a session. */
  protected sessionArgs(argv: readonly unknown[], what = 'SESSION'): string[] {
    const list = listOf(argv)
    if (list.length === 0) this.fail(`Name at least one ${what} (an id, a native id or a unique prefix of 4+ characters).`, EXIT.USAGE)
    return list
  }

  /** Resolve every query, then apply `plan` to each session in one transaction and report. */
  protected async triage(
    verb: string,
    queries: readonly string[],
    plan: (row: SessionRow, now: number) => TriageChange | null,
    options: TriageOptions,
  ): Promise<TriageResult> {
    const {clock, store} = await this.syncedStore()
    const {resolveSessions} = await import('./resolve.js')
    const {applyTriage} = await import('../core/store/triage.js')
    const ids = resolveSessions(store, queries)
    const now = clock()
    if (options.refuse) {
      for (const row of store.loadSessions(ids)) {
        const why = options.refuse(row, now)
        if (why !== null) this.fail(why, options.refuseExit ?? EXIT.REFUSED)
      }
    }

    const applied = applyTriage(store, {now, verb, who: this.me}, ids, (row) => plan(row, now))
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
    const {sessionJson, titleOf} = await import('./views.js')
    const {oneLine} = await import('./sanitize.js')
    const {shortId} = await import('../core/model/ids.js')
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
