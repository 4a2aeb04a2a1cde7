/**
 * How cast starts and resumes each agent CLI: argv templates with `{prompt}`, `{id}` (the
 * agent's own session id) and `{cwd}`, overridable per agent in the config's `agents` key, so a
 * wrapper (or a test's fake agent) can stand in for the real binary.
 *
 * Text is data: the built-in templates put `--` before the user's text (and
 * before a positional id), so a message that begins with `-` is never read as an option; an id
 * is checked against the agent's id syntax before it is put in; a template from the config that
 * passes `{prompt}` without a `--` before it is refused for a message that begins with `-`.
 */
import fs from 'node:fs'
import path from 'node:path'

import {type AgentCommands, binOf, registry} from '../../adapters/index.js'
import type {Agent} from '../../core/model/types.js'
import type {CastConfig} from '../home/config.js'

export type CommandKind = 'interactive' | 'headless' | 'resume'
export type {AgentCommands}
/** Commands reach the agent registry through src/lib (docs/contract.md §2): this re-export. */
export {registry} from '../../adapters/index.js'

/** What the agents' own CLIs take (docs/agents.md): each agent module's templates. */
export function defaultAgentCommands(agent: Agent): AgentCommands | undefined {
  return registry().byId(agent)?.commands?.templates
}

/** The names people type (`--agent <bin>`) and the config may use, to cast's agent ids: any spelling the registry knows. */
export function agentFromName(name: string): Agent | null {
  return registry().byAlias(name)?.id ?? null
}

/** What `cast spawn --agent` takes: the binary of each agent cast can start. */
export function spawnableAgents(): string[] {
  return registry().spawnable.map((m) => binOf(m) ?? m.id)
}

/** The variables the agents cast can start honour (where their files live), passed on to a spawn. */
export function spawnEnvironment(): string[] {
  return [...new Set(registry().spawnable.flatMap((m) => m.env))]
}

/** The hook install names of the agents whose hooks carry cast's guidance and nudge (`a|b`), for help texts. */
export function nudgeHookNames(): string {
  return registry()
    .hookSpecs.filter((s) => s.nudgeEvents && s.nudgeEvents.length > 0)
    .map((s) => s.name)
    .join('|')
}

/** How cast resumes each agent it can resume (`<bin> --resume ID …`), for help texts. */
export function resumeExamples(): string[] {
  return registry().modules.flatMap((m) => {
    const t = m.commands?.templates.resume
    return t
      ? [
          t
            .filter((a) => a !== '--')
            .map((a) => a.replace('{id}', 'ID').replace('{prompt}', '…').replace('{cwd}', 'DIR'))
            .join(' '),
        ]
      : []
  })
}

/** How an agent that takes its session id up front is told it (`<bin> --session-id`), for help texts; null when none does. */
export function presetIdExample(): string | null {
  for (const m of registry().spawnable) {
    const t = m.commands?.templates.interactive ?? m.commands?.templates.headless ?? []
    const at = t.indexOf('{id}')
    if (at > 0) return t.slice(0, at).join(' ')
  }

  return null
}

/** The template for one agent and kind: the config's (under any of the agent's names), else the default. */
export function commandTemplate(agent: Agent, kind: CommandKind, config: Pick<CastConfig, 'agents'>): readonly string[] | null {
  for (const [name, cmds] of Object.entries(config.agents)) {
    if (agentFromName(name) === agent || name === agent) {
      const t = cmds[kind]
      if (t) return t
    }
  }

  return defaultAgentCommands(agent)?.[kind] ?? null
}

/** Any other agent: a word that cannot be read as an option. */
const GENERIC_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/

/** Does `id` have the agent's id syntax? */
export function validAgentId(agent: Agent, id: string): boolean {
  return (registry().byId(agent)?.commands?.idSyntax ?? GENERIC_ID).test(id)
}

export class TemplateError extends Error {
  override name = 'TemplateError'
}

/**
 * Fill a template. A placeholder is replaced inside any argument; an argument is never split.
 * With `agent`, the id must have that agent's syntax; a prompt that begins with `-` needs a `--`
 * before the argument that carries it (else TemplateError).
 */
export function fillTemplate(template: readonly string[], values: {prompt?: string; id?: string; cwd?: string}, agent?: Agent): string[] {
  if (agent !== undefined && values.id !== undefined && template.some((a) => a.includes('{id}')) && !validAgentId(agent, values.id)) {
    throw new TemplateError(`"${values.id}" is not a ${agent} session id`)
  }

  if (values.prompt !== undefined && values.prompt.startsWith('-')) {
    const at = template.findIndex((a) => a.includes('{prompt}'))
    const dashes = template.indexOf('--')
    if (at !== -1 && template[at] === '{prompt}' && (dashes === -1 || dashes > at)) {
      throw new TemplateError(
        'the command template passes the message where a message beginning with "-" would be read as an option; put "--" before {prompt}',
      )
    }
  }

  return template.map((arg) =>
    arg.replaceAll(/\{(prompt|id|cwd)\}/g, (_whole, key: 'prompt' | 'id' | 'cwd') => {
      const v = values[key]
      if (v === undefined) throw new Error(`the command template needs {${key}}, which is not known here`)
      return v
    }),
  )
}

/** Does the template let cast choose the session id up front? */
export function takesPresetId(template: readonly string[]): boolean {
  return template.some((a) => a.includes('{id}'))
}

/**
 * Why `file` cannot be run with this PATH (as execvp would look it up), or null when it can: the
 * check `cast spawn` makes before it opens a tmux window, so a missing CLI is said as headless
 * says it ("<cli>: command not found") and no tmux server is started for nothing.
 */
export function notRunnable(file: string, env: Readonly<Record<string, string | undefined>>): string | null {
  const executable = (p: string): boolean => {
    try {
      fs.accessSync(p, fs.constants.X_OK)
      return fs.statSync(p).isFile()
    } catch {
      return false
    }
  }

  if (file.includes('/')) return executable(path.resolve(env.PWD ?? process.cwd(), file)) ? null : `${file}: no such executable file`
  const dirs = (env.PATH ?? '').split(':').map((d) => d || '.')
  return dirs.some((d) => executable(path.join(d, file))) ? null : `${file}: command not found`
}
