/**
 * The only list of agents cast knows, in the order `cast doctor` lists them.
 * Each agent is one `AgentModule` from its own folder; every other place asks the registry
 * (`registry()`): by id, by alias, the spawnable ones, the session variables, the screen
 * patterns, the hook specs, the display names. Commands reach it only through src/lib.
 *
 * Adding an agent: its folder under src/adapters/, and one line in MODULES.
 */
import type {Adapter} from '../core/ingest/adapter.js'
import {claudeCodeAgent} from './claude-code/index.js'
import {codexAgent} from './codex/index.js'
import {copilotAgent} from './copilot/index.js'
import {cursorAgent} from './cursor/index.js'
import {geminiAgent} from './gemini/index.js'
import {noteRegistryReplaced} from './light.js'
import {type AgentModule, binOf, type HookInstallSpec} from './module.js'
import {opencodeAgent} from './opencode/index.js'
import {piAgent} from './pi/index.js'
import type {ScreenPatterns} from './screen-types.js'

export const MODULES: readonly AgentModule[] = [claudeCodeAgent, codexAgent, opencodeAgent, piAgent, geminiAgent, copilotAgent, cursorAgent]

export type {AgentCommands, AgentHooks, AgentModule, HookInstallSpec} from './module.js'
export {binOf} from './module.js'

/** A spelling as the registry compares it: lowercase, spaces and dashes as `_`. */
export function agentKey(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replaceAll(/[\s-]+/g, '_')
}

export interface Registry {
  readonly modules: readonly AgentModule[]
  /** Every agent id, in registry order. */
  readonly ids: readonly string[]
  /** The reading side, for the ingest engine. */
  readonly adapters: readonly Adapter[]
  readonly screenPatterns: readonly ScreenPatterns[]
  /** Variables agent CLIs set in the shells they spawn, naming their own session. */
  readonly sessionVariables: readonly {readonly agent: string; readonly name: string}[]
  /** Agents cast can start (`cast spawn --agent <bin>`): those with interactive or headless templates. */
  readonly spawnable: readonly AgentModule[]
  /** Every install spec, in registry order; and the agents without hooks, with the reason. */
  readonly hookSpecs: readonly HookInstallSpec[]
  readonly noHooks: Readonly<Record<string, string>>
  /** id -> how a person names it in a sentence. */
  readonly shortNames: Readonly<Record<string, string>>
  /** Every environment variable some agent honours, deduplicated. */
  readonly envVariables: readonly string[]
  byId(id: string): AgentModule | undefined
  /** By any spelling: the id, an alias, the CLI's binary (`claude-code`, `Claude`, `claude_code`). */
  byAlias(name: string): AgentModule | undefined
  adapterFor(id: string): Adapter | undefined
  /** The install spec by its command-line name, the agent id or an alias. */
  hookSpecFor(name: string): HookInstallSpec | undefined
}

/**
 * Build a registry over `modules`. Throws when two agents share an id or a spelling, or when a
 * module's parts disagree on its id (a copy-paste slip in a new folder fails at start, loudly).
 */
export function createRegistry(modules: readonly AgentModule[]): Registry {
  const byId = new Map<string, AgentModule>()
  const byKey = new Map<string, AgentModule>()
  for (const m of modules) {
    if (byId.has(m.id)) throw new Error(`agent registry: "${m.id}" is registered twice`)
    byId.set(m.id, m)
    const parts = [m.reading.agent, m.screen.agent, m.hooks.spec?.agent ?? m.id]
    if (parts.some((p) => p !== m.id)) throw new Error(`agent registry: "${m.id}" has parts for ${[...new Set(parts)].join(', ')}`)
    if ((m.hooks.reducer ?? null) !== (m.reading.hooks ?? null))
      throw new Error(`agent registry: "${m.id}": the hook reducer is not the one its adapter reads with`)
  }

  for (const m of modules) {
    const bin = binOf(m)
    for (const name of [m.id, ...m.names.aliases, ...(bin === null ? [] : [bin])]) {
      const key = agentKey(name)
      const other = byKey.get(key) ?? byId.get(key)
      if (other && other !== m) throw new Error(`agent registry: "${name}" names both ${other.id} and ${m.id}`)
      byKey.set(key, m)
    }
  }

  const hookSpecs = modules.flatMap((m) => (m.hooks.spec ? [m.hooks.spec] : []))
  const byAlias = (name: string): AgentModule | undefined => byKey.get(agentKey(name))
  return {
    adapterFor: (id) => byId.get(id)?.reading,
    adapters: modules.map((m) => m.reading),
    byAlias,
    byId: (id) => byId.get(id),
    envVariables: [...new Set(modules.flatMap((m) => m.env))],
    hookSpecFor(name) {
      const n = name.trim().toLowerCase()
      return hookSpecs.find((s) => s.name === n || s.agent === n || s.aliases.includes(n)) ?? byAlias(n)?.hooks.spec
    },
    hookSpecs,
    ids: modules.map((m) => m.id),
    modules,
    noHooks: Object.fromEntries(modules.flatMap((m) => (m.hooks.none === undefined ? [] : [[m.id, m.hooks.none]]))),
    screenPatterns: modules.map((m) => m.screen),
    sessionVariables: modules.flatMap((m) => (m.sessionVariable ? [{agent: m.id, name: m.sessionVariable}] : [])),
    shortNames: Object.fromEntries(modules.map((m) => [m.id, m.names.short])),
    spawnable: modules.filter((m) => m.commands?.templates.interactive || m.commands?.templates.headless),
  }
}

const BUILT_IN = createRegistry(MODULES)
let current: Registry = BUILT_IN

/** The registry cast runs with: the built-in one, unless a test installed another (`useRegistry`). */
export function registry(): Registry {
  return current
}

/**
 * Run with another registry in this process (a test's fixture agent: `useRegistry(createRegistry(
 * [...MODULES, fixture]))`); null puts the built-in one back. The read worker thread always uses
 * the built-in one: the engine reads the files of an agent the worker does not know itself.
 */
export function useRegistry(r: Registry | null): void {
  current = r ?? BUILT_IN
  noteRegistryReplaced(current !== BUILT_IN)
}

/** The built-in adapters, in registry order (tests build engines over them). */
export const ADAPTERS: readonly Adapter[] = BUILT_IN.adapters

export function adapterFor(agent: string): Adapter | undefined {
  return current.adapterFor(agent)
}
