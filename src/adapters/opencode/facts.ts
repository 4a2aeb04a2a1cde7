/**
 * Typed per-source facts: what each OpenCode source carries for compose beside
 * its SessionFacts, one discriminated union on `opencode` (and, for the storage/ files, on
 * `record`). The database reader (db.ts), the storage reader (storage.ts) and the log parser
 * (log.ts) write them; compose reads them through `factsOf`/`storageRecord`, the one place a
 * stored contribution's `extra` is trusted as this shape.
 */
import type {Contribution} from '../../core/ingest/adapter.js'
import {factsReader, hasTag, type Tagged} from '../kit/facts-reader.js'
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

/** What the log says of a session: a permission pending (if any); the contribution's `heldAt` says which processes show it (log.ts). */
export type LogFacts = {
  readonly opencode: 'log'
  readonly approval?: {
    readonly at: number
    readonly id: string
    readonly offset: number
    readonly permission: string
    readonly text: string
  }
  readonly ref: string
}

/** One storage/ record: the session, a message, or an active tool part. */
export type StorageFacts =
  | {readonly opencode: 'storage'; readonly record: 'session'; readonly ref: string; readonly session: OcSession}
  | {readonly opencode: 'storage'; readonly record: 'message'; readonly ref: string; readonly message: OcMessage}
  | {readonly opencode: 'storage'; readonly record: 'part'; readonly ref: string; readonly part: OcPart}

export type OpencodeFacts = DbFacts | LogFacts | StorageFacts

const reader = factsReader<OpencodeFacts, 'opencode'>('opencode', {db: true, log: true, storage: true})

/** A contribution's facts of one source (null: another source's, e.g. the screen's or the process scan's). */
export const factsOf = reader.of

/** A storage record of one kind (null: another kind, or not a storage record). */
export function storageRecord<R extends StorageFacts['record']>(
  c: Pick<Contribution, 'extra'> | null | undefined,
  record: R,
): Tagged<StorageFacts, 'record', R> | null {
  const f = factsOf(c, 'storage')
  return f !== null && hasTag(f, 'record', record) ? f : null
}
