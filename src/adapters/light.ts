/**
 * Every agent's path rules and screen patterns, without its parsers, in registry order: what a
 * sync that finds nothing changed needs (src/lib/ingest/quick-sync.ts), from each agent's light
 * definition (src/adapters/agents.ts). test/adapters/registry.test.ts checks this list against the registry.
 */
import type {AdapterRules} from '../core/ingest/adapter.js'
import {AGENTS} from './agents.js'
import type {ScreenPatterns} from './screen-types.js'

export interface LightModule {
  readonly rules: AdapterRules
  readonly screen: ScreenPatterns
}

/** In registry order (src/adapters/agents.ts). */
export const LIGHT_MODULES: readonly LightModule[] = AGENTS.map((a) => ({rules: a.rules, screen: a.screen}))

let replaced = false

/**
 * Whether a test installed another registry in this process (src/adapters/index.ts useRegistry):
 * then this list is not the one cast runs with, and a sync loads the registry instead.
 */
export function registryReplaced(): boolean {
  return replaced
}

/** Called by useRegistry only. */
export function noteRegistryReplaced(value: boolean): void {
  replaced = value
}
