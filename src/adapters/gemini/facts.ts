/**
 * Typed per-source facts: what each Gemini CLI source carries for compose
 * beside its SessionFacts, one discriminated union on `role`. The chat reader (chat.ts) and the
 * hook reducer (hooks.ts) write them; compose reads them through `factsOf`, the one place a
 * stored contribution's `extra` is trusted as this shape.
 */
import type {HookMoments} from '../kit/hook-steps.js'
import {factsReader} from '../kit/facts-reader.js'

/** A chat file's state beyond the facts. */
export type ChatFacts = {
  readonly role: 'chat'
  readonly format: 'jsonl' | 'json'
  readonly kind: string | null
  /** Newest message or tool-call time. */
  readonly progressAt: number | null
  /** Newest time a prompt, reply or error was created. */
  readonly messageAt: number | null
  readonly compactions: number
  readonly checkpoints: number
  readonly rewinds: number
  readonly summary: boolean
  readonly project: string | null
}

/** The hook reducer's moments (hooks.ts). */
export type GeminiHookFacts = HookMoments & {
  readonly compactAt: number | null
  readonly sessionStartAt: number | null
}

export type GeminiFacts = ChatFacts | GeminiHookFacts

const reader = factsReader<GeminiFacts, 'role'>('role', {chat: true, hooks: true})

/** A contribution's Gemini facts, by role (null: another source's, e.g. the screen's). */
export const geminiFacts = reader.all

/** Narrowed to one role (null: the contribution is not that source's). */
export const factsOf = reader.of
