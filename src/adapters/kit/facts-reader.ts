/**
 * Reading an adapter's typed per-source facts back. Each adapter types what its
 * sources carry beyond SessionFacts as one discriminated union in its `facts.ts`, tagged by one
 * key (most use `role`). A contribution read back from the store is untyped JSON, so compose reads
 * it through the reader made here: the one place an adapter trusts a stored `extra` as its union,
 * by the tag alone (the adapter wrote it; other sources', the screen's or the process scan's,
 * carry no such tag).
 *
 * The tags are given as a record over the union's tags, so a tag missing from the list, or one
 * the union does not have, fails to compile.
 */
import type {Contribution, ContributionExtra} from '../../core/ingest/adapter.js'

/** The member of union `F` whose tag `K` is `V`. */
export type Tagged<F, K extends string, V> = Extract<F, {readonly [P in K]: V}>

type Source = Pick<Contribution, 'extra'> | null | undefined

export interface FactsReader<F extends ContributionExtra & {readonly [P in K]: string}, K extends string> {
  /** A contribution's facts of this adapter (null: another source's, e.g. the screen's). */
  readonly all: (c: Source) => F | null
  /** Narrowed to one source (null: the contribution is not that source's). */
  readonly of: <V extends F[K]>(c: Source, tag: V) => Tagged<F, K, V> | null
}

/** Is this member of a union the one tagged `tag`? */
export function hasTag<F extends {readonly [P in K]: string}, K extends string, V extends F[K]>(
  f: F,
  key: K,
  tag: V,
): f is Tagged<F, K, V> {
  return f[key] === tag
}

/** The reader of union `F`, tagged by `key` with the tags listed in `tags`. */
export function factsReader<F extends ContributionExtra & {readonly [P in K]: string}, K extends string>(
  key: K,
  tags: {readonly [T in F[K]]: true},
): FactsReader<F, K> {
  const known: ReadonlySet<unknown> = new Set(Object.keys(tags))
  // `!= null`: a stored contribution is JSON, and its extra could read back as null.
  const isFacts = (x: ContributionExtra | undefined): x is F => x != null && known.has(x[key])
  const all = (c: Source): F | null => (c != null && isFacts(c.extra) ? c.extra : null)
  return {
    all,
    of: <V extends F[K]>(c: Source, tag: V): Tagged<F, K, V> | null => {
      const f = all(c)
      return f !== null && hasTag(f, key, tag) ? f : null
    },
  }
}
