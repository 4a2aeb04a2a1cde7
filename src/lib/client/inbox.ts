/**
 * `openInbox()`: the typed client over cast's store (the same CAST_HOME the CLI reads). Every
 * method returns what the matching command prints with --json and throws only CastError
 * (src/lib/client/errors.ts) with the exit code's name. Nothing here loads oclif.
 */
import {oneLine} from '../../core/model/sanitize.js'
import type {WorkState} from '../../core/model/types.js'
import type {Store} from '../../core/store/store.js'
import type {ScheduleJson} from '../agents/deliver.js'
import {EXIT} from '../base/exit-codes.js'
import {castHome, clockFrom, type Env, whoAmI} from '../home/env.js'
import type {DecisionJson, SessionJson} from '../views/json-shapes.js'
import type {Listing} from '../views/views.js'
import {CastError, guarded} from './errors.js'
import type {WaitForAnswerOptions} from './answer.js'
import type {ExplainJson} from './explain.js'
import type {StateJson} from './own.js'
import type {QueuedJson, SendJson, VerbContext} from './verbs.js'
import type {WatchLineJson, WatchOptions} from './watch.js'

export interface InboxOptions {
  /** The environment read for CAST_HOME, CAST_USER, CAST_NOW and the caller's variables (default process.env). */
  readonly env?: Env
  /** CAST_HOME (default: the environment's). */
  readonly home?: string
}

export interface SessionsFilter {
  readonly states?: readonly WorkState[]
  readonly label?: string
  readonly agent?: readonly string[]
  readonly cwd?: string
  /** My inbox without its recency window, dismissed and hidden ones too (`--all`). */
  readonly all?: boolean
}

/** `cast wait --json`. */
export interface WaitJson {
  met: boolean
  sessions: SessionJson[]
}

export interface WaitOptions {
  readonly until: readonly WorkState[]
  readonly any?: boolean
  /** ms; on timeout the result has met: false. */
  readonly timeout?: number
  readonly signal?: AbortSignal
}

export type SessionsJson = Listing

const POLL_MS = 250

export class Inbox {
  readonly me: string
  private readonly clock: () => number

  constructor(
    private readonly store: Store,
    private readonly env: Env,
  ) {
    this.me = whoAmI(env)
    this.clock = clockFrom(env)
  }

  /** The verbs' context (src/lib/client/verbs.ts). */
  get context(): VerbContext {
    return {clock: this.clock, env: this.env, me: this.me, store: this.store}
  }

  /** One incremental sync of the agents' files, unless a live ingester keeps the store current. */
  async sync(): Promise<void> {
    if (this.store.stale) return
    const {syncBeforeReadQuick} = await import('../ingest/quick-sync.js')
    await syncBeforeReadQuick(this.store, this.env, this.clock, this.me)
  }

  /** `cast sessions --json [--state S] [--label L] [--agent A] [--cwd D] [--all]`. */
  sessions(filter: SessionsFilter = {}): Promise<SessionsJson> {
    return guarded(async () => {
      const {listSessions} = await import('../views/sessions-list.js')
      let streamed = ''
      const listing = await listSessions(
        this.store,
        this.env,
        this.clock,
        this.me,
        {
          agent: filter.agent,
          all: filter.all,
          cwd: filter.cwd,
          label: filter.label ? [filter.label] : undefined,
          state: filter.states,
        },
        {json: true, line: () => {}, styled: () => {}, write: (chunk) => void (streamed += chunk)},
      )
      return listing ?? (JSON.parse(streamed) as Listing)
    })
  }

  /** `cast explain ID --json`: an exact id, a native id or a unique prefix. */
  explain(id: string): Promise<ExplainJson> {
    return guarded(async () => {
      await this.sync()
      const sid = await this.resolve(id)
      const {explainSession} = await import('./explain.js')
      return explainSession(this.store, this.env, sid, this.me, this.clock())
    })
  }

  /** `cast sessions -w --json [--since SEQ]` as an async iterator; ends when `signal` aborts. */
  async *watch(options: WatchOptions = {}): AsyncGenerator<WatchLineJson, void, undefined> {
    const {watchTransitions} = await import('./watch.js')
    try {
      yield* watchTransitions({me: this.me, now: this.clock, store: this.store, sync: () => this.sync()}, options)
    } catch (error) {
      const {toCastError} = await import('./errors.js')
      throw toCastError(error)
    }
  }

  /**
   * `cast state TEXT --status S --json` for this process's own session (CAST_SESSION, the agent's
   * variable, else the process tree above it), or `session` when the program names it.
   */
  declare(input: {status: string; text: string; session?: string}): Promise<StateJson> {
    return guarded(async () => {
      const {callerOf, checkDeclaration, declareFor, findOwnSessionOf} = await import('./own.js')
      const decl = checkDeclaration(input.status, input.text)
      await this.sync()
      const caller = callerOf(this.env)
      const found = findOwnSessionOf(this.store, caller, input.session)
      return declareFor(this.store, this.env, found, decl, caller, this.me, this.clock())
    })
  }

  /** `cast decide QUESTION --option "LABEL :: effect"… --json` on this process's own session (or `session`). */
  decide(input: {
    question: string
    options: readonly (string | {label: string; effect?: string})[]
    recommend?: number
    why?: string
    session?: string
  }): Promise<DecisionJson> {
    return guarded(async () => {
      const {callerOf, findOwnSessionOf} = await import('./own.js')
      const {postDecisionCard} = await import('./verbs.js')
      await this.sync()
      const found = findOwnSessionOf(this.store, callerOf(this.env), input.session)
      return postDecisionCard(this.context, {...input, sessionId: found.id})
    })
  }

  /** Block until the card is answered (CLI, TUI, web, phone), as `cast decide --wait` does, presence budgets included. */
  waitForAnswer(card: string, options: WaitForAnswerOptions = {}): Promise<DecisionJson> {
    return guarded(async () => {
      const {waitForAnswer} = await import('./answer.js')
      return waitForAnswer(this.context, card, options)
    })
  }

  /** `cast send ID TEXT [--if S…] [--queue] --json`. */
  send(id: string, text: string, options: {ifState?: readonly string[]; queue?: boolean} = {}): Promise<SendJson | QueuedJson> {
    return guarded(async () => {
      const {sendToSession} = await import('./verbs.js')
      await this.sync()
      return sendToSession(this.context, {id: await this.resolve(id), text, ...options})
    })
  }

  /** `cast schedule ID --at T TEXT --json`; `at` a Date, epoch ms or an ISO 8601 string. */
  schedule(id: string, input: {at: Date | number | string; text: string; everyMs?: number}): Promise<ScheduleJson> {
    return guarded(async () => {
      const {scheduleMessage} = await import('./verbs.js')
      await this.sync()
      const at = input.at instanceof Date ? input.at.getTime() : typeof input.at === 'number' ? input.at : Date.parse(input.at)
      if (Number.isNaN(at)) throw new CastError(`"${String(input.at)}" is not a time (ISO 8601 or epoch ms).`, EXIT.USAGE)
      return scheduleMessage(this.context, {at, everyMs: input.everyMs ?? null, id: await this.resolve(id), text: input.text})
    })
  }

  /** `cast wait ID… --until S[,S] [--any] [--timeout D] --json`. */
  wait(ids: readonly string[], options: WaitOptions): Promise<WaitJson> {
    return guarded(async () => {
      if (ids.length === 0) throw new CastError('Name the sessions to wait for.', EXIT.USAGE)
      if (options.until.length === 0) throw new CastError('Name the states to wait for (until).', EXIT.USAGE)
      await this.sync()
      const resolved: string[] = []
      for (const id of ids) resolved.push(await this.resolve(id))
      const {sessionJson} = await import('../views/views.js')
      const deadline = options.timeout === undefined ? null : Date.now() + options.timeout
      for (;;) {
        const rows = this.store.loadSessions([...new Set(resolved)])
        const met = rows.filter((r) => options.until.includes(r.state))
        const now = this.clock()
        if (options.any ? met.length > 0 : met.length === rows.length)
          return {met: true, sessions: (options.any ? met : rows).map((r) => sessionJson(r, this.me, now))}
        if ((deadline !== null && Date.now() >= deadline) || options.signal?.aborted)
          return {met: false, sessions: rows.map((r) => sessionJson(r, this.me, now))}
        await new Promise((r) => setTimeout(r, POLL_MS))
        await this.sync()
      }
    })
  }

  /** An id, native id or unique prefix → the session id (NOT_FOUND, AMBIGUOUS as the CLI says them). */
  async resolve(query: string): Promise<string> {
    const {resolveSession} = await import('../base/resolve.js')
    return resolveSession(this.store, query)
  }

  /** An exact session id only (what `cast mcp` takes): anything else is NOT_FOUND. */
  exactId(id: string): string {
    const hit = this.store.sessionIdCandidates(id).find((c) => c.id === id)
    if (!hit)
      throw new CastError(
        `No session has the id "${oneLine(id.length > 80 ? `${id.slice(0, 80)}…` : id)}" (an exact id is needed).`,
        EXIT.NOT_FOUND,
      )
    return hit.id
  }

  /** The open store (for the verbs' context); close() closes it. */
  get storeHandle(): Store {
    return this.store
  }

  close(): void {
    this.store.close()
  }
}

/** Open the inbox at CAST_HOME (or `options.home`). */
export async function openInbox(options: InboxOptions = {}): Promise<Inbox> {
  const env: Env = options.home === undefined ? (options.env ?? process.env) : {...(options.env ?? process.env), CAST_HOME: options.home}
  return guarded(async () => {
    const {Store} = await import('../../core/store/store.js')
    return new Inbox(new Store(castHome(env)), env)
  })
}
