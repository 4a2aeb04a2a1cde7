/**
 * The per-agent lookup, read from the agent registry (src/adapters/index.ts): every agent whose
 * hooks cast can install (each spec is pure data in `src/adapters/<agent>/hooks-spec.ts`), and the
 * agents cast reads without shell hooks.
 */
import {MODULES} from '../../../adapters/index.js'
import type {HookSpec} from '../../../core/ingest/hook-spec.js'

/** Every agent whose hooks cast can install, in registry order (each spec is its module's `hooks.spec`). */
export const HOOK_SPECS: readonly HookSpec[] = MODULES.flatMap((m) => (m.hooks.spec ? [m.hooks.spec] : []))

/** Agents cast reads without shell hooks, and why (for a clear refusal): each module's `hooks.none`. */
export const NO_HOOKS: Readonly<Record<string, string>> = Object.fromEntries(
  MODULES.flatMap((m) => (m.hooks.none === undefined ? [] : [[m.id, m.hooks.none]])),
)

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
  return {
    message: `Unknown agent "${name}". Agents with hooks: ${names}.`,
    suggestions: ['cast hooks status   lists them with what is installed.'],
  }
}

// ---------------------------------------------------------------------------------------------
// The commands' help, from the specs (adding an agent changes no help text by hand)

/** Words as a list: `a, b or c` (`last` joins the last two). */
function list(words: readonly string[], last: string): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')}${last}${words.at(-1)!}`
}

/** The names `cast hooks` takes, as a list: `a, b or c`. */
export function hookAgentNames(last = ' or '): string {
  return list(
    HOOK_SPECS.map((s) => s.name),
    last,
  )
}

/** The agents whose hook protocol carries the nudge, by label: `A and B`. */
export function nudgeAgentLabels(): string {
  return list(
    HOOK_SPECS.filter((s) => (s.nudgeEvents?.length ?? 0) > 0).map((s) => s.label),
    ' and ',
  )
}

/** Where each agent's settings file is: `<name> → <where>; …`. */
export function hookFilesText(): string {
  return HOOK_SPECS.map((s) => `${s.name} → ${s.where}`).join('; ')
}

/** A real name for a help example: the n-th agent with hooks (so examples run as written). */
/** The agents whose MCP configuration `cast hooks install --mcp` writes, by their names on the command line. */
export function mcpAgentNames(): string {
  return list(
    HOOK_SPECS.filter((s) => s.mcpConfigPath !== undefined).map((s) => s.name),
    ', ',
  )
}

/** The first agent whose MCP configuration cast writes (for examples). */
export function exampleMcpAgent(): string {
  return HOOK_SPECS.find((s) => s.mcpConfigPath !== undefined)?.name ?? exampleHookAgent(0)
}

export function exampleHookAgent(n = 0): string {
  return HOOK_SPECS[n % HOOK_SPECS.length]!.name
}

/** Files that hold only cast's hooks (deleted when emptied), as a list of where they are. */
export function hooksOnlyFilesText(): string {
  return list(
    HOOK_SPECS.filter((s) => s.hooksOnly).map((s) => s.where),
    ', ',
  )
}

/** The agents cast also sets a TOML program for, by label, with the key: `Label's notify`. */
export function tomlProgramsText(): string {
  return list(
    HOOK_SPECS.flatMap((s) => (s.toml ? [`${s.label}'s ${s.toml.key}`] : [])),
    ' and ',
  )
}
