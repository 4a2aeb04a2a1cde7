/**
 * Which sessions a write from the page may name (src/lib/web/server.ts): this machine's, or a
 * teammate's that the team store says I own or run. The errors carry the HTTP status and the
 * exit code of docs/contract.md the page shows.
 */
import type {SessionRow, Store} from '../../core/store/store.js'
import {readOnlyLine} from '../../core/model/ownership.js'
import {oneLine} from '../../core/model/sanitize.js'
import {loadConfig} from '../home/config.js'
import {deviceName, type Env} from '../home/env.js'
import {EXIT} from '../base/exit-codes.js'

/** A refusal with its HTTP status and exit code. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly exit: number,
  ) {
    super(message)
  }
}

/** What a write check reads: the store, the environment and who I am. */
export interface WriteContext {
  readonly store: Store
  readonly env: Env
  readonly me: string
}

/**
 * A write names a session of this machine's store (acted on as the CLI acts), or a teammate's
 * session the team store says I own or run, read with the checks every teammate's row passes
 * (src/core/store/team/reader.ts) and the rule the page's read-only marks come from
 * (core/model/ownership.ts readOnlyLine). Anything else is refused here, before a command runs
 * or an action is queued, whatever the page drew or the request claims. Ids are exact.
 */
export async function writable(o: WriteContext, session: string): Promise<{remote: boolean; row: SessionRow}> {
  const local = o.store.loadSessions([session])[0]
  if (local) return {remote: false, row: local}
  const {teamRow} = await import('../team/index.js')
  let row: SessionRow | null | undefined
  try {
    row = await teamRow(o.store, o.env, await loadConfig(o.env), deviceName(o.env), session)
  } catch (error) {
    throw new HttpError(
      503,
      `${session.slice(0, 7)} is not on this machine, and ${(error as Error).message}: nothing was done.`,
      EXIT.FAILURE,
    )
  }

  if (!row) throw new HttpError(404, `No session ${session} on this machine${row === null ? ' or in the team store' : ''}.`, EXIT.NOT_FOUND)
  const line = readOnlyLine({device: row.device, owners: row.records.owners, runner: row.runner}, o.me)
  if (line !== null) throw new HttpError(403, `${oneLine(line).slice(0, 300)}: nothing was done.`, EXIT.REFUSED)
  return {remote: true, row}
}

/** A decision card of this machine, or of a teammate's session I may act on (the page names the session). */
export async function cardWritable(o: WriteContext, card: string, session: string | null): Promise<void> {
  if (!/^[\w.:-]{1,200}$/.test(card)) throw new HttpError(400, '"card" is a card id.', EXIT.USAGE)
  const {hasLocalCard} = await import('../../core/store/outbox.js')
  if (hasLocalCard(o.store, card)) return
  if (session === null || !/^\w[\w.:-]{0,199}$/.test(session))
    throw new HttpError(404, `No decision card ${card} on this machine (a teammate's card needs its "session").`, EXIT.NOT_FOUND)
  const {row} = await writable(o, session)
  if (row.decision?.id !== card) throw new HttpError(404, `Session ${session.slice(0, 7)} holds no card ${card}.`, EXIT.NOT_FOUND)
}

/**
 * Whether the ask of several questions the page drew (`asked`: each question and its options'
 * labels) is the one the store has open for the session now; answers to another ask are not sent.
 */
export function sameAsk(store: Store, session: string, asked: unknown): boolean {
  const open = store.loadSessions([session])[0]?.facts.question?.questions
  if (!open || !Array.isArray(asked)) return false
  return JSON.stringify(asked) === JSON.stringify(open.map((q) => ({options: q.options.map((o) => o.label), question: q.question})))
}
