/**
 * Everything cast knows about one agent, in one value. Each agent's folder
 * exports one `AgentModule` from its `index.ts`; `src/adapters/index.ts` lists them, and every
 * other place asks that registry (by id, by alias, the spawnable ones, the session variables, …)
 * instead of keeping a list of its own. Agent-neutral: no agent is named here.
 */
import type {Adapter, AdapterRules, HookReducer} from '../core/ingest/adapter.js'
import type {HookSpec} from '../core/ingest/hook-spec.js'
import type {AskTabsScreen, ScreenPatterns} from './screen-types.js'

/** Argv templates with `{prompt}`, `{id}` (the agent's own session id) and `{cwd}`. */
export interface AgentCommands {
  /** Start in a terminal with a first prompt. */
  readonly interactive?: readonly string[]
  /** Start without a terminal, run the prompt, exit. */
  readonly headless?: readonly string[]
  /** Resume an existing session without a terminal with one more message. */
  readonly resume?: readonly string[]
}

/** How cast installs an agent's hooks: the spec type beside the Adapter contract (core/ingest/hook-spec.ts). */
export type HookInstallSpec = HookSpec

/** The agent's hooks: the reducer of its spooled events and how cast installs them, or why there are none. */
export type AgentHooks<S extends HookInstallSpec = HookInstallSpec> =
  | {readonly reducer: HookReducer<unknown>; readonly spec: S; readonly none?: undefined}
  | {readonly none: string; readonly reducer?: undefined; readonly spec?: undefined}

export interface AgentModule<S extends HookInstallSpec = HookInstallSpec> {
  /** cast's agent id: the value stored in the database and printed in JSON (`agent`). */
  readonly id: string
  /** Reading: roots, matches, parsers, compose (the engine's contract, src/core/ingest/adapter.ts). */
  readonly reading: Adapter
  readonly hooks: AgentHooks<S>
  /** The terminal fallback: what its tmux pane shows, its process names, how to answer its dialog. */
  readonly screen: ScreenPatterns
  /** Its dialog for an ask of several questions or a multiple choice, when cast can read it (`cast choose`). */
  readonly askTabs?: AskTabsScreen
  /** Its names; the long one for doctor, explain and help texts is `reading.label`. */
  readonly names: {
    /** How a person names it in a sentence (`<short> is waiting for approval`). */
    readonly short: string
    /**
     * Other spellings people type and the config may use (`--agent`, `agents.<name>`), besides
     * the id and the CLI's binary. Matched after lowercasing with spaces and dashes as `_`.
     */
    readonly aliases: readonly string[]
  }
  /** The variable its CLI sets in the shells it spawns, naming its own session; null when none. */
  readonly sessionVariable: string | null
  /** Environment variables it honours (where its files live): kept for spawns, cleared by the demo. */
  readonly env: readonly string[]
  /** How cast starts, resumes and messages it; absent templates: cast cannot spawn or resume it. */
  readonly commands?: {
    readonly templates: AgentCommands
    /** What its own session ids look like; an id that does not match is never passed on. */
    readonly idSyntax?: RegExp
  }
  /**
   * A process of this agent that serves several sessions at once (a shared daemon), told by its
   * argv: never evidence that one session runs there (the verbs refuse to act on it).
   */
  readonly sharedDaemon?: (argv: readonly string[]) => boolean
  /** The project file it reads instructions from (`cast agent-instructions`). */
  readonly instructionsFile: string
}

/**
 * What an agent's folder states without loading its parsers (its `definition.ts`): the fast paths
 * (a no-op sync, `cast state`) read these, and `load` brings the whole module. One line per agent
 * in src/adapters/agents.ts lists them; every other list of agents is built from that one.
 */
export interface AgentDefinition {
  readonly id: string
  /** The variable its CLI sets in the shells it spawns, naming its own session; null when none. */
  readonly sessionVariable: string | null
  /** Process names whose open files the engine claims for a session (a running CLI that holds its transcript). */
  readonly openFileProcesses: readonly string[]
  /** Its path rules: the part of its adapter a sync that finds nothing changed needs. */
  readonly rules: AdapterRules
  /** Its screen patterns (data): process names, prompt and dialog shapes. */
  readonly screen: ScreenPatterns
  /** The whole module: reading, hooks, commands, names. */
  readonly load: () => Promise<AgentModule>
}

/** The name of the CLI binary: the npm package's, else the first process name of its screen patterns. */
export function binOf(m: AgentModule): string | null {
  return m.reading.cli?.bin ?? m.screen.processes[0] ?? null
}

/** A session id that is a UUID (the agents that name sessions so). */
export const UUID_SYNTAX = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
