import {createRequire} from 'node:module'
import os from 'node:os'
import path from 'node:path'

/** Environment every command reads: where data lives, who I am, what time it is. */
export type Env = Readonly<Record<string, string | undefined>>

/** `CAST_HOME`, else `$XDG_DATA_HOME/cast`, else `~/.local/share/cast`. */
export function castHome(env: Env = process.env): string {
  if (env.CAST_HOME) return path.resolve(env.CAST_HOME)
  if (env.XDG_DATA_HOME) return path.join(env.XDG_DATA_HOME, 'cast')
  return path.join(homeDir(env), '.local', 'share', 'cast')
}

/**
 * The user's home: `HOME` when it is an absolute path, else the passwd entry's (an empty or
 * relative HOME would put the store and every agent folder under the current folder); with
 * neither, a usage error.
 */
export function homeDir(env: Env = process.env): string {
  if (env.HOME && path.isAbsolute(env.HOME)) return env.HOME
  let home = ''
  try {
    home = os.userInfo().homedir
  } catch {
    // no passwd entry for this uid (a container's arbitrary uid)
  }

  if (home && path.isAbsolute(home)) return home
  throw new UsageError(
    `HOME is ${env.HOME ? `"${env.HOME}", not an absolute path` : 'empty'} and this user has no home in the passwd database: set HOME, or CAST_HOME and the agents' folders.`,
  )
}

/** The clock every time rule uses: `CAST_NOW` (ISO 8601 or epoch ms) or the real one. */
export function nowFrom(env: Env = process.env): number {
  const raw = env.CAST_NOW?.trim()
  if (!raw) return Date.now()
  if (/^\d+$/.test(raw)) return Number(raw)
  const t = Date.parse(raw)
  if (Number.isNaN(t)) throw new UsageError(`CAST_NOW="${raw}" is neither ISO 8601 nor epoch milliseconds.`)
  return t
}

/** A clock: fixed when CAST_NOW is set, else the real time on every call. */
export function clockFrom(env: Env = process.env): () => number {
  if (env.CAST_NOW?.trim()) {
    const fixed = nowFrom(env)
    return () => fixed
  }

  return () => Date.now()
}

/** The identity found without CAST_USER, with what it was found from (one process may run several commands: tests). */
let cachedMe: {key: string; me: string} | undefined
/** `CAST_USER`, else `git config user.email`, else `$USER@hostname`. */
export function whoAmI(env: Env = process.env): string {
  if (env.CAST_USER?.trim()) return env.CAST_USER.trim()
  const p = process.env
  const key = [env.USER, p.HOME, p.XDG_CONFIG_HOME, p.GIT_CONFIG_GLOBAL, p.GIT_CONFIG_SYSTEM, process.cwd()].join('\0')
  if (cachedMe?.key === key) return cachedMe.me
  let me: string | undefined
  try {
    // node:child_process is loaded here only: `cast state`'s fast path reads this module and spawns nothing.
    const {execFileSync} = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process')
    me =
      execFileSync('git', ['config', 'user.email'], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 2000}).trim() ||
      undefined
  } catch {
    // no git, or no email configured
  }

  me ??= `${env.USER || os.userInfo().username}@${os.hostname()}`
  cachedMe = {key, me}
  return me
}

/**
 * This machine's name in the team store: `CAST_DEVICE`, else `HOST:ACCOUNT` (the host name and
 * the login account), so two accounts on one host are two devices (docs/team.md).
 */
export function deviceName(env: Env = process.env): string {
  if (env.CAST_DEVICE?.trim()) return env.CAST_DEVICE.trim()
  let account = env.USER?.trim()
  if (!account) {
    try {
      account = os.userInfo().username
    } catch {
      account = String(process.getuid?.() ?? 'user')
    }
  }

  return `${os.hostname()}:${account}`.replace(/[\s\p{Cc}]/gu, '_')
}

export class UsageError extends Error {
  override name = 'UsageError'
}
