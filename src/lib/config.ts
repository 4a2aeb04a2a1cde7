/**
 * cast's one config file: `$CAST_HOME/config.json` when CAST_HOME is set, else
 * `$XDG_CONFIG_HOME/cast/config.json` (default `~/.config/cast/config.json`). Validated with zod;
 * an error names the key and the file. zod is loaded only when a file exists.
 */
import fs from 'node:fs'
import path from 'node:path'

import {CastError} from './cast-error.js'
import {type Env, homeDir} from './env.js'
import {EXIT} from './exit-codes.js'

export interface PresenceConfig {
  readonly name: string
  /** How long `decide --wait` may block, in ms; null = indefinitely (online). */
  readonly waitBudgetMs: number | null
  readonly instructions: string
}

export interface CastConfig {
  readonly file: string
  readonly team: readonly {readonly id: string; readonly name?: string}[]
  /** The team store: its URL (or the variable holding it) and the team's name. */
  readonly teamStore?: {readonly url: string | null; readonly urlEnv: string | null; readonly name: string | null}
  readonly inbox: {readonly recencyMs: number}
  readonly presences: readonly PresenceConfig[]
  /** A command that reads the last assistant message on stdin and answers delivered/not. */
  readonly settleClassifier: readonly string[] | null
  /** How long one settle-classifier run may take (null: the 20 s default). */
  readonly settleClassifierTimeoutMs?: number | null
  /** argv templates per agent: {interactive, headless, resume}. `{prompt}`, `{id}`, `{cwd}` are filled in. */
  readonly agents: Readonly<
    Record<string, {readonly interactive?: readonly string[]; readonly headless?: readonly string[]; readonly resume?: readonly string[]}>
  >
  /** Extra or replacement screen patterns for the terminal fallback, per agent. */
  readonly screenPatterns: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>
  /** Paging (`cast notify`, `cast daemon --notify`): backends, the custom command, done and quiet notices, the burst window. */
  readonly notify?: NotifyConfig
}

export interface NotifyConfig {
  readonly backends: readonly ('auto' | 'freedesktop' | 'macos' | 'tmux' | 'bell' | 'command' | 'stdout')[]
  readonly command: readonly string[] | null
  readonly done: 'soft' | 'normal' | 'off'
  readonly quiet: boolean
  readonly groupWindowMs: number
}

export const BUILTIN_PRESENCES: readonly PresenceConfig[] = [
  {instructions: 'A question may wait indefinitely.', name: 'online', waitBudgetMs: null},
  {instructions: 'Never block on the user. Decide, keep working, leave notes in the inbox.', name: 'away', waitBudgetMs: 0},
]

export function configPath(env: Env): string {
  if (env.CAST_HOME) return path.join(path.resolve(env.CAST_HOME), 'config.json')
  const base = env.XDG_CONFIG_HOME || path.join(homeDir(env), '.config')
  return path.join(base, 'cast', 'config.json')
}

/** What an identity looks like (`CAST_USER`, an owner, a team member): 3+ characters, no spaces or commas. */
export const IDENTITY_SHAPE = /^[^\s,]{3,}$/

/**
 * The identity `who` names. With a team configured it must be a member, named by id or by name
 * (without case), and the member's id is returned; without one, anything identity-shaped is taken
 * as typed. Otherwise exit 2, naming the key and the file.
 */
export function resolveIdentity(config: CastConfig, who: string): string {
  const typed = who.trim()
  if (config.team.length > 0) {
    const key = typed.toLowerCase()
    const member = config.team.find((t) => t.id.trim().toLowerCase() === key || t.name?.trim().toLowerCase() === key)
    if (member) return member.id
    const list = config.team.map((t) => (t.name ? `${t.id} (${t.name})` : t.id)).join(', ')
    throw new CastError(`"${typed}" is not on the team: key "team" in ${config.file} lists ${list}.`, EXIT.USAGE)
  }

  if (!IDENTITY_SHAPE.test(typed)) {
    throw new CastError(`"${typed}" is not an identity: use an email or user@host (3+ characters, no spaces or commas).`, EXIT.USAGE)
  }

  return typed
}

const DEFAULTS = {
  agents: {},
  inbox: {recencyMs: 7 * 24 * 3600 * 1000},
  presences: BUILTIN_PRESENCES,
  screenPatterns: {},
  settleClassifier: null,
  team: [],
}

/** Load and validate the config file; zod is imported only when there is a file. */
export async function loadConfig(env: Env): Promise<CastConfig> {
  const file = configPath(env)
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {...DEFAULTS, file}
    throw new CastError(`Cannot read the config file ${file}: ${(error as Error).message}`, EXIT.USAGE)
  }

  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (error) {
    throw new CastError(`The config file ${file} is not valid JSON: ${(error as Error).message}`, EXIT.USAGE)
  }

  const {validateConfig} = await import('./config-schema.js')
  return validateConfig(raw, file)
}
