/**
 * Typed per-source facts (issue 12 point 2): what each OpenCode source carries for compose beside
 * its SessionFacts, one discriminated union on `opencode` (and, for the storage/ files, on
 * `record`). The database reader (db.ts), the storage reader (storage.ts) and the log parser
 * (log.ts) write them; compose reads them through `factsOf`/`storageRecord`, the one place a
 * stored contribution's `extra` is trusted as this shape.
 */
import type {Contribution} from '../../core/ingest/adapter.js'
import type {OcMessage, OcPart, OcSession} from './model.js'

/** A database's summary of one session (complete on its own). */
export type DbFacts = {
  readonly opencode: 'db'
  readonly archived: boolean
  readonly compactions: number
  readonly finish: string | null
  readonly providerID: string | null
  readonly tail: string
  readonly version: string | null
}

/** A permission the log says is pending. */
export type LogFacts = {
  readonly opencode: 'log'
  readonly approval: {readonly at: number; readonly id: string; readonly offset: number; readonly permission: string; readonly text: string}
  readonly ref: string
}

/** One storage/ record: the session, a message, or an active tool part. */
export type StorageFacts =
  | {readonly opencode: 'storage'; readonly record: 'session'; readonly ref: string; readonly session: OcSession}
  | {readonly opencode: 'storage'; readonly record: 'message'; readonly ref: string; readonly message: OcMessage}
  | {readonly opencode: 'storage'; readonly record: 'part'; readonly ref: string; readonly part: OcPart}

export type OpencodeFacts = DbFacts | LogFacts | StorageFacts

const SOURCES: ReadonlySet<string> = new Set(['db', 'log', 'storage'])

/** A contribution's OpenCode facts (null: another source's, e.g. the screen's or the process scan's). */
export function opencodeFacts(c: Pick<Contribution, 'extra'>): OpencodeFacts | null {
  const source = c.extra?.['opencode']
  return typeof source === 'string' && SOURCES.has(source) ? (c.extra as OpencodeFacts) : null
}

/** Narrowed to one source (null: the contribution is not that source's). */
export function factsOf<K extends OpencodeFacts['opencode']>(
  c: Pick<Contribution, 'extra'> | null | undefined,
  source: K,
): Extract<OpencodeFacts, {opencode: K}> | null {
  const f = c == null ? null : opencodeFacts(c)
  return f?.opencode === source ? (f as Extract<OpencodeFacts, {opencode: K}>) : null
}

/** A storage record of one kind (null: another kind, or not a storage record). */
export function storageRecord<R extends StorageFacts['record']>(
  c: Pick<Contribution, 'extra'> | null | undefined,
  record: R,
): Extract<StorageFacts, {record: R}> | null {
  const f = factsOf(c, 'storage')
  return f?.record === record ? (f as Extract<StorageFacts, {record: R}>) : null
}
