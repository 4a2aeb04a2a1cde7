/**
 * Typed per-source facts: what each Cursor source carries for compose beside
 * its SessionFacts, one discriminated union on `role`. The store reader (store.ts), meta.json
 * (meta.ts) and the hook reducer (hooks.ts) write them; compose reads them through `factsOf`, the
 * one place a stored contribution's `extra` is trusted as this shape.
 */
import type {HookMoments} from '../kit/hook-steps.js'
import {factsReader} from '../kit/facts-reader.js'

/** A chat's store.db beyond the facts. */
export type StoreFacts = {
  readonly role: 'store'
  readonly ref: string
  readonly name: string | null
  readonly mode: string | null
  readonly lastRole: string | null
  readonly messageBlobs: number
}

/** A chat's meta.json sidecar. */
export type MetaFacts = {
  readonly role: 'meta'
  readonly ref: string
  readonly title: string | null
  readonly updatedAt: number | null
  readonly isSubagent: boolean
  readonly hasConversation: boolean | null
}

/** The hook reducer's moments (hooks.ts). Not facts: hooks alone (no chat store) do not make a session. */
export type CursorHookFacts = HookMoments & {
  readonly model: string | null
  readonly textAt: number | null
}

export type CursorFacts = StoreFacts | MetaFacts | CursorHookFacts

const reader = factsReader<CursorFacts, 'role'>('role', {hooks: true, meta: true, store: true})

/** A contribution's Cursor facts, by role (null: another source's, e.g. the screen's). */
export const cursorFacts = reader.all

/** Narrowed to one role (null: the contribution is not that source's). */
export const factsOf = reader.of
