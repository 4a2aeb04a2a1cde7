/**
 * The registry: every agent's whole module, loaded from the one list of agents
 * (src/adapters/agents.ts), in the order `cast doctor` lists them. Every other place asks the
 * registry (`registry()`): by id, by alias, the spawnable ones, the session variables, the screen
 * patterns, the hook specs, the display names. Commands reach it only through src/lib.
 *
 * Adding an agent: its folder under src/adapters/ (a definition.ts and an index.ts), and one line
 * in src/adapters/agents.ts.
 */
import type {Adapter} from '../core/ingest/adapter.js'
import {AGENTS} from './agents.js'
import {noteRegistryReplaced} from './light.js'
import {type AgentDefinition, type AgentModule, binOf, type HookInstallSpec} from './module.js'
import type {ScreenPatterns} from './screen-types.js'

/** A definition's module, checked against it: a folder whose two halves disagree fails at start. */
export async function loadAgent(d: AgentDefinition): Promise<AgentModule> {
  const m = await d.load()
  const same =
    m.id === d.id &&
    m.sessionVariable === d.sessionVariable &&
    m.screen === d.screen &&
    (m.reading.openFileProcesses ?? []).join() === d.openFileProcesses.join() &&
    m.reading.roots === d.rules.roots
  if (!same) throw new Error(`agent registry: the definition of "${d.id}" does not match its module`)
  return m
}

export const MODULES: readonly AgentModule[] = await Promise.all(AGENTS.map(loadAgent))

export type {AgentCommands, AgentDefinition, AgentHooks, AgentModule, HookInstallSpec} from './module.js'
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
  /** By any spelling: the id, an alias, the CLI's binary (any case; spaces and dashes as `_`). */
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
