/**
 * The terminal fallback's matcher (src/adapters/screen-match.ts) over the registry's screen
 * patterns: every agent module's `screen`, or a test's registry (`useRegistry`).
 */
import {registry} from './index.js'
import {compileScreenPatterns as compileOver, type ScreenOverrides, screenMatcher as matcherOver} from './screen-match.js'
import type {ScreenPatterns} from './screen-types.js'

export * from './screen-match.js'

/**
 * Every agent's built-in patterns, in registry order (each agent module's `screen`), as the
 * built-in registry has them; the sweep reads `registry().screenPatterns` when it runs.
 */
export const SCREEN_PATTERNS: readonly ScreenPatterns[] = registry().screenPatterns

/** The built-in patterns (the registry's unless given) with the config's merged over them (screen-match.ts). */
export function compileScreenPatterns(
  overrides: ScreenOverrides = {},
  builtin: readonly ScreenPatterns[] = registry().screenPatterns,
): ReturnType<typeof compileOver> {
  return compileOver(overrides, builtin)
}

/** Everything the sweep needs, from the registry's patterns and the config's (screen-match.ts). */
export function screenMatcher(overrides: ScreenOverrides = {}): ReturnType<typeof matcherOver> {
  return matcherOver(overrides, registry().screenPatterns)
}
