/**
 * What an agent wants from `cast hooks install` (docs/contract.md §5), as pure data: which settings file,
 * which events, what one handler looks like. Each agent's spec is `src/adapters/<agent>/hooks-spec.ts`;
 * the one generic merge/remove logic and the file handling over it are src/lib/agents/hooks/.
 *
 * Types only, agent-neutral, beside the Adapter contract (./adapter.ts): adapters import them
 * without reaching up into src/lib.
 */
import type {Agent} from '../model/types.js'
import type {AdapterEnv} from './adapter.js'

/**
 * How a settings file lists hooks under `hooks.<event>`:
 * - `grouped`: `[{matcher?, hooks: [handler, …]}, …]`;
 * - `flat`: `[handler, …]`.
 */
export type HookLayout = 'grouped' | 'flat'

export interface HookEventSpec {
  /** The key under `hooks` in the agent's file. */
  readonly event: string
  /** For the grouped layout: the group's matcher (omitted when undefined). */
  readonly matcher?: string
}

/** A program cast sets in a TOML config (a legacy `notify` key), beside the JSON hooks. */
export interface TomlProgramSpec {
  /** The key, for messages (`notify`). */
  readonly key: string
  path(ctx: AdapterEnv): string
  /** Where the key is at the top level, and whether it is cast's. */
  find(text: string): {readonly value: string; readonly cast: boolean} | null
  /** The text with cast's program set (replacing cast's earlier one). Call only when find() is null or cast's. */
  set(text: string, argv: readonly string[]): string
  /** The text without cast's program (unchanged when it is not cast's). */
  remove(text: string): string
  /** Notes on the rest of the file worth telling the user (a feature switched off, …). */
  notes?(text: string): string[]
}

export interface HookSpec {
  readonly agent: Agent
  /** The name on the command line (`cast hooks install <name>`). */
  readonly name: string
  /** Other names accepted on the command line. */
  readonly aliases: readonly string[]
  readonly label: string
  readonly layout: HookLayout
  /** The key of a handler that holds the shell command (usually `command`; some agents: `bash`). */
  readonly commandKey: string
  readonly events: readonly HookEventSpec[]
  /** The JSON file cast merges its entries into. */
  settingsPath(ctx: AdapterEnv): string
  /** Where that file is, in words (`cast hooks install --help`): `~/.cursor/hooks.json`. */
  readonly where: string
  /** cast's handler for one event. */
  handler(command: string, event: HookEventSpec): Record<string, unknown>
  /** Top-level keys the file must have (`version: 1`), added when missing. */
  readonly required?: Readonly<Record<string, unknown>>
  /**
   * The file holds only hooks (a hooks.json, or cast's own file in a hooks folder): uninstall
   * deletes it when nothing but the required keys is left, rather than leave an empty shell.
   */
  readonly hooksOnly?: boolean
  /** The agent's settings file may hold comments (JSONC): say so when parsing fails. */
  readonly jsonc?: boolean
  /** What the user should know after an install (how the agent picks hooks up). */
  readonly notes: readonly string[]
  /** Notes on the parsed settings worth telling the user (hooks switched off, …). */
  settingsNotes?(doc: Readonly<Record<string, unknown>>): string[]
  /** A program cast also sets in a TOML config (a legacy `notify` key), when the agent has one. */
  readonly toml?: TomlProgramSpec
  /**
   * Events whose answer carries the nudge (docs/hooks.md): their command runs with CAST_NUDGE=1,
   * so bin/cast-hook answers Stop once per undeclared turn and adds cast's guidance (and a
   * presence notice) as context at SessionStart and UserPromptSubmit. Omitted: the agent's hook
   * protocol takes no answer cast can use.
   */
  readonly nudgeEvents?: readonly string[]
  /**
   * The JSON file holding the agent's own MCP servers under `mcpServers`, when cast can add its
   * `cast mcp` entry there (`cast hooks install --mcp`); omitted: the user adds it by hand.
   */
  mcpConfigPath?(ctx: AdapterEnv): string
}

/** An agent cast reads without shell hooks, and why (the refusal `cast hooks install` gives). */
export interface NoHooks {
  readonly agent: Agent
  readonly reason: string
}
