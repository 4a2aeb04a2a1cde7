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

// ---------------------------------------------------------------------------------------------
// The commands' help, from the specs (adding an agent changes no help text by hand)

/** Words as a list: `a, b or c` (`last` joins the last two). */
function list(words: readonly string[], last: string): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')}${last}${words.at(-1)!}`
}

/** The names `cast hooks` takes: `claude-code, codex, gemini, cursor or copilot`. */
export function hookAgentNames(last = ' or '): string {
  return list(HOOK_SPECS.map((s) => s.name), last)
}

/** The agents whose hook protocol carries the nudge: `Claude Code and Codex`. */
export function nudgeAgentLabels(): string {
  return list(HOOK_SPECS.filter((s) => (s.nudgeEvents?.length ?? 0) > 0).map((s) => s.label), ' and ')
}

/** Where each agent's settings file is: `claude-code → …; codex → …`. */
export function hookFilesText(): string {
  return HOOK_SPECS.map((s) => `${s.name} → ${s.where}`).join('; ')
}
