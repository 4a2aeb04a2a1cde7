/**
 * The per-agent lookup: every agent whose hooks cast can install (each spec is pure data in
 * `src/adapters/<agent>/hooks-spec.ts`), and the agents cast reads without shell hooks.
 */
import {claudeCodeHookSpec} from '../../adapters/claude-code/hooks-spec.js'
import {codexHookSpec} from '../../adapters/codex/hooks-spec.js'
import {copilotHookSpec} from '../../adapters/copilot/hooks-spec.js'
import {cursorHookSpec} from '../../adapters/cursor/hooks-spec.js'
import {geminiHookSpec} from '../../adapters/gemini/hooks-spec.js'
import {opencodeNoHooks} from '../../adapters/opencode/hooks-spec.js'
import {piNoHooks} from '../../adapters/pi/hooks-spec.js'
import type {HookSpec} from '../../core/ingest/hook-spec.js'

/** Every agent whose hooks cast can install, in the order `status` lists them. */
export const HOOK_SPECS: readonly HookSpec[] = [claudeCodeHookSpec, codexHookSpec, geminiHookSpec, cursorHookSpec, copilotHookSpec]

/** Agents cast reads without shell hooks, and why (for a clear refusal). */
export const NO_HOOKS: Readonly<Record<string, string>> = Object.fromEntries([opencodeNoHooks, piNoHooks].map((n) => [n.agent, n.reason]))

export function hookSpecFor(name: string): HookSpec | undefined {
  const n = name.trim().toLowerCase()
  return HOOK_SPECS.find((s) => s.name === n || s.agent === n || s.aliases.includes(n))
}

/** The spec for a name on the command line, or why there is none (a usage error). */
export function lookupHookSpec(name: string): {spec: HookSpec} | {message: string; suggestions: string[]} {
  const spec = hookSpecFor(name)
  if (spec) return {spec}
  const n = name.trim().toLowerCase()
  const names = HOOK_SPECS.map((s) => s.name).join(', ')
  if (n in NO_HOOKS) return {message: NO_HOOKS[n]!, suggestions: [`Agents with hooks: ${names}.`]}
  return {message: `Unknown agent "${name}". Agents with hooks: ${names}.`, suggestions: ['cast hooks status   lists them with what is installed.']}
}
