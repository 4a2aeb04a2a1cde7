/**
 * Every agent's path rules and screen patterns, without its parsers, in registry order: what a
 * sync that finds nothing changed needs (src/lib/ingest/quick-sync.ts). Each agent's `rules.ts`
 * is the part of its adapter the registry (src/adapters/index.ts) builds over; its
 * `screen-patterns.ts` is data. test/adapters/registry.test.ts checks this list against the registry.
 */
import type {AdapterRules} from '../core/ingest/adapter.js'
import {claudeCodeRules} from './claude-code/rules.js'
import {claudeScreenPatterns} from './claude-code/screen-patterns.js'
import {codexRules} from './codex/rules.js'
import {codexScreenPatterns} from './codex/screen-patterns.js'
import {copilotRules} from './copilot/rules.js'
import {copilotScreenPatterns} from './copilot/screen-patterns.js'
import {cursorRules} from './cursor/rules.js'
import {cursorScreenPatterns} from './cursor/screen-patterns.js'
import {geminiRules} from './gemini/rules.js'
import {geminiScreenPatterns} from './gemini/screen-patterns.js'
import {opencodeRules} from './opencode/rules.js'
import {opencodeScreenPatterns} from './opencode/screen-patterns.js'
import {piRules} from './pi/rules.js'
import {piScreenPatterns} from './pi/screen-patterns.js'
import type {ScreenPatterns} from './screen-types.js'

export interface LightModule {
  readonly rules: AdapterRules
  readonly screen: ScreenPatterns
}

/** In registry order (src/adapters/index.ts MODULES). */
export const LIGHT_MODULES: readonly LightModule[] = [
  {rules: claudeCodeRules, screen: claudeScreenPatterns},
  {rules: codexRules, screen: codexScreenPatterns},
  {rules: opencodeRules, screen: opencodeScreenPatterns},
  {rules: piRules, screen: piScreenPatterns},
  {rules: geminiRules, screen: geminiScreenPatterns},
  {rules: copilotRules, screen: copilotScreenPatterns},
  {rules: cursorRules, screen: cursorScreenPatterns},
]

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
