/**
 * The TypeScript types of the JSON contract are the zod schemas' (src/core/model/wire-schema.ts):
 * each assertion below stops `npm run typecheck` when a field of wire.ts, of the library's types
 * or of a builder's type is added, renamed, dropped or retyped without the schema (and so
 * docs/schema/) following. The runtime case only shows the file ran.
 */
import {describe, expect, it} from 'vitest'
import type {z} from 'zod'

import type {
  DecisionSchema,
  ExplainSchema,
  ListingSchema,
  RefusalSchema,
  SessionSchema,
  TransitionLineSchema,
  VerbOutcomeSchema,
  WatchLineSchema,
} from '../../src/core/model/wire-schema.js'
import {WIRE_SCHEMAS} from '../../src/core/model/wire-schema.js'
import type {
  DecisionJson,
  ExplainJson,
  ListingJson,
  RefusalJson,
  SessionJson,
  TransitionLineJson,
  VerbOutcomeJson,
  WatchLineJson,
} from '../../src/core/model/wire.js'
import type * as Library from '../../src/lib/client/index.js'
import type {ErrorEnvelope} from '../../src/lib/cli/errors.js'
import type {HoldsJson} from '../../src/lib/views/holds-view.js'
import type {RestExplanation} from '../../src/lib/ingest/classifier.js'
import type {Listing} from '../../src/lib/views/views.js'
import type {TriageResult} from '../../src/lib/verbs/triage.js'

/** Readonly-ness is not part of the contract (the model's types are readonly, JSON is not). */
type Plain<T> = T extends (infer U)[]
  ? Plain<U>[]
  : T extends readonly (infer U)[]
    ? Plain<U>[]
    : T extends object
      ? {-readonly [K in keyof T]: Plain<T[K]>}
      : T
/** Exactly the same type: every key, its optionality and its type (no "assignable one way"). */
type Equal<A, B> = (<T>() => T extends Plain<A> ? 1 : 2) extends <T>() => T extends Plain<B> ? 1 : 2 ? true : false
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- the type argument is the assertion
function same<T extends true>(): void {}

same<Equal<z.infer<typeof ListingSchema>, ListingJson>>()
same<Equal<z.infer<typeof ListingSchema>, Listing>>()
same<Equal<z.infer<typeof ListingSchema>, Library.SessionsJson>>()
same<Equal<z.infer<typeof SessionSchema>, SessionJson>>()
same<Equal<z.infer<typeof SessionSchema>, Library.SessionJson>>()
same<Equal<z.infer<typeof DecisionSchema>, DecisionJson>>()
same<Equal<z.infer<typeof DecisionSchema>, Library.DecisionJson>>()
same<Equal<z.infer<typeof WatchLineSchema>, WatchLineJson>>()
same<Equal<z.infer<typeof TransitionLineSchema>, TransitionLineJson>>()
same<Equal<z.infer<typeof TransitionLineSchema>, Library.WatchLineJson>>()
same<Equal<z.infer<typeof ExplainSchema>, ExplainJson>>()
same<Equal<z.infer<typeof ExplainSchema>, Library.ExplainJson>>()
same<Equal<z.infer<typeof ExplainSchema>['holds'], HoldsJson>>()
same<Equal<z.infer<typeof ExplainSchema>['rest'], RestExplanation | null>>()
same<Equal<z.infer<typeof VerbOutcomeSchema>, VerbOutcomeJson>>()
same<Equal<Omit<z.infer<typeof VerbOutcomeSchema>, 'schema'>, TriageResult>>()
same<Equal<z.infer<typeof RefusalSchema>, RefusalJson>>()
same<Equal<z.infer<typeof RefusalSchema>, ErrorEnvelope>>()

// The check can fail: a renamed field is a different type.
same<Equal<{a: string}, {b: string}> extends false ? true : false>()
same<Equal<{a: string}, {a?: string}> extends false ? true : false>()
same<Equal<{a: string}, {a: string; b?: string}> extends false ? true : false>()

describe('the JSON contract types', () => {
  it('declares a zod schema for every shape docs/schema/ holds', () => {
    expect(Object.keys(WIRE_SCHEMAS).sort()).toEqual([
      'decision',
      'explain',
      'listing',
      'refusal',
      'session',
      'transition-line',
      'verb-outcome',
      'watch-line',
    ])
  })
})
