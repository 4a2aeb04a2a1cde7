/**
 * The command cast's hook entries run, and how it is quoted for sh and read back.
 *
 * cast's entries are recognised by the hook command they run: a word whose basename is
 * `cast-hook` (so an install from another checkout or an older path is cast's too, and is
 * replaced rather than doubled).
 */
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import type {AdapterEnv} from '../../../core/ingest/adapter.js'
import type {HookEventSpec, HookSpec} from '../../../core/ingest/hook-spec.js'
import type {Agent} from '../../../core/model/types.js'
import {castHome, type Env, homeDir} from '../../home/env.js'

/** The command cast installs: the hook script, the agent id it spools under, the store it feeds. */
export interface HookCommand {
  /** Absolute path of `bin/cast-hook`. */
  readonly binary: string
  /** cast's agent id, the spool name (the registry's `id`). */
  readonly agent: Agent
  /** CAST_HOME baked into the command, or null to let the hook script find its default. */
  readonly castHome: string | null
}

/** The environment word that turns the nudge on in bin/cast-hook. */
export const NUDGE_WORD = 'CAST_NUDGE=1'

/** The command cast installs for one event: the plain hook command, or with the nudge on. */
export function eventCommand(spec: HookSpec, command: string, e: HookEventSpec, nudge: boolean): string {
  return nudge && spec.nudgeEvents?.includes(e.event) ? `${NUDGE_WORD} ${command}` : command
}

/** Does an installed command run with the nudge on? */
export function hasNudge(command: unknown): boolean {
  return typeof command === 'string' && shellWords(command).includes(NUDGE_WORD)
}

/** `bin/cast-hook` of this installation (three levels up from dist/lib/hooks or src/lib/agents/hooks). */
export function hookBinary(): string {
  return fileURLToPath(new URL('../../../../bin/cast-hook', import.meta.url))
}

/** The environment an agent spec resolves its paths in. */
export function adapterEnvOf(env: Env): AdapterEnv {
  return {env, home: homeDir(env)}
}

/**
 * The command for one agent. CAST_HOME is baked in when the user runs cast with a store other
 * than the hook script's default (CAST_HOME or XDG_DATA_HOME set), so hooks land in that store
 * even when the agent runs with another environment.
 */
export function hookCommandFor(agent: Agent, env: Env, binary = hookBinary()): HookCommand {
  const custom = Boolean(env.CAST_HOME) || Boolean(env.XDG_DATA_HOME)
  return {agent, binary, castHome: custom ? castHome(env) : null}
}

const SHELL_SAFE = /^[\w@%+=:,./-]+$/

export function shellQuote(s: string): string {
  return SHELL_SAFE.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`
}

/** `CAST_HOME='/x' /abs/bin/cast-hook <agent id>` — for settings that run a shell command. */
export function shellCommand(c: HookCommand): string {
  const run = `${shellQuote(c.binary)} ${c.agent}`
  return c.castHome === null ? run : `CAST_HOME='${c.castHome.replaceAll("'", "'\\''")}' ${run}`
}

/** The same as an argv (for settings that take a program and its arguments, like a TOML `notify`). */
export function commandArgv(c: HookCommand): string[] {
  return c.castHome === null ? [c.binary, c.agent] : ['/usr/bin/env', `CAST_HOME=${c.castHome}`, c.binary, c.agent]
}

/** Does this command run cast's hook script? (A word whose basename is `cast-hook`.) */
export function isCastCommand(command: unknown): command is string {
  return typeof command === 'string' && /(?:^|[\s/'"=])cast-hook['"]?(?:\s|$)/.test(command)
}

/** The words of a shell command, honouring single and double quotes (enough for cast's own commands). */
export function shellWords(command: string): string[] {
  const words: string[] = []
  let cur = ''
  let inWord = false
  let quote: '"' | "'" | null = null
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!
    if (quote === "'") {
      if (ch === "'") quote = null
      else cur += ch
    } else if (quote === '"') {
      if (ch === '"') quote = null
      else if (ch === '\\' && i + 1 < command.length && '"\\$`'.includes(command[i + 1]!)) cur += command[++i]
      else cur += ch
    } else if (ch === "'" || ch === '"') {
      quote = ch
      inWord = true
    } else if (ch === '\\' && i + 1 < command.length) {
      cur += command[++i]
      inWord = true
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(cur)
      cur = ''
      inWord = false
    } else {
      cur += ch
      inWord = true
    }
  }

  if (inWord) words.push(cur)
  return words
}

/** What an installed cast command points at: the hook script and the CAST_HOME it feeds. */
export function parseCastCommand(command: string): {binary: string | null; castHome: string | null} {
  const words = shellWords(command)
  let home: string | null = null
  let binary: string | null = null
  for (const w of words) {
    const m = /^CAST_HOME=(.*)$/s.exec(w)
    if (m) home = m[1]!
    else if (path.basename(w) === 'cast-hook') {
      binary = w
      break
    }
  }

  return {binary, castHome: home}
}
