/**
 * cast's one config file: `$CAST_HOME/config.json` when CAST_HOME is set, else
 * `$XDG_CONFIG_HOME/cast/config.json` (default `~/.config/cast/config.json`). Validated with zod;
 * an error names the key and the file. zod is loaded only when a file exists.
 */
import fs from 'node:fs'
import path from 'node:path'

import {CastError} from '../base/cast-error.js'
import {type Env, homeDir} from './env.js'
import {EXIT} from '../base/exit-codes.js'

export {BUILTIN_PRESENCES, type CastConfig, IDENTITY_SHAPE, type NotifyConfig, type PresenceConfig} from './config-shape.js'
import {BUILTIN_PRESENCES, type CastConfig, IDENTITY_SHAPE} from './config-shape.js'

export function configPath(env: Env): string {
  if (env.CAST_HOME) return path.join(path.resolve(env.CAST_HOME), 'config.json')
  const base = env.XDG_CONFIG_HOME || path.join(homeDir(env), '.config')
  return path.join(base, 'cast', 'config.json')
}

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
