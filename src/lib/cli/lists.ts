/**
 * Lists on the command line: a comma list and repeats alike, everywhere a
 * flag or the arguments take several values. `--state done,idle` = `--state done --state
 * idle`; `cast kill a1b2c3d,e4f5a6b` = `cast kill a1b2c3d e4f5a6b`. Values are trimmed, empty
 * ones dropped, repeats dropped (the first stays, in order).
 */
import {Flags} from '@oclif/core'

// listOf is oclif-free (the sessions fast path uses it): it lives with the other value parsers.
export {listOf} from './flag-values.js'

/**
 * A flag that takes a list: repeat it or use commas (oclif splits at unescaped commas and trims);
 * each value goes through `parse` (which throws with a one-line message on a bad one). Never
 * greedy: the words after a value are arguments, not more values.
 */
export function listFlag<T>(options: {helpValue: string; parse: (input: string) => T}) {
  return Flags.custom<T>({
    delimiter: ',',
    helpValue: options.helpValue,
    multiple: true,
    multipleNonGreedy: true,
    parse: (input) => Promise.resolve(options.parse(input)),
  })
}

/** A list value that must not be empty (a label, an identity). */
export function nonEmpty(input: string): string {
  const t = input.trim()
  if (t === '') throw new Error('An empty value in the list (two commas, or one at the end?).')
  return t
}
