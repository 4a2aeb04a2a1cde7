/**
 * How cast starts and resumes each agent CLI: argv templates with `{prompt}`, `{id}` (the
 * agent's own session id) and `{cwd}`, overridable per agent in the config's `agents` key, so a
 * wrapper (or a test's fake agent) can stand in for the real binary.
 *
 * Text is data (issue 11 point 2): the built-in templates put `--` before the user's text (and
 * before a positional id), so a message that begins with `-` is never read as an option; an id
 * is checked against the agent's id syntax before it is put in; a template from the config that
 * passes `{prompt}` without a `--` before it is refused for a message that begins with `-`.
 */
import type {Agent} from '../core/model/types.js'
import type {CastConfig} from './config.js'

export type CommandKind = 'interactive' | 'headless' | 'resume'

export interface AgentCommands {
  /** Start in a terminal with a first prompt. */
  readonly interactive?: readonly string[]
  /** Start without a terminal, run the prompt, exit. */
  readonly headless?: readonly string[]
  /** Resume an existing session without a terminal with one more message. */
  readonly resume?: readonly string[]
}

/** What the agents' own CLIs take (agent-formats §1, §2). */
export const DEFAULT_AGENT_COMMANDS: Readonly<Partial<Record<Agent, AgentCommands>>> = {
  claude_code: {
    headless: ['claude', '--session-id', '{id}', '-p', '--', '{prompt}'],
    interactive: ['claude', '--session-id', '{id}', '--', '{prompt}'],
    resume: ['claude', '--resume', '{id}', '-p', '--', '{prompt}'],
  },
  codex: {
    headless: ['codex', 'exec', '--cd', '{cwd}', '--', '{prompt}'],
    interactive: ['codex', '--cd', '{cwd}', '--', '{prompt}'],
    resume: ['codex', 'exec', 'resume', '--', '{id}', '{prompt}'],
  },
}

/** The names people type (`--agent claude`) and the config may use, to cast's agent names. */
const ALIASES: Readonly<Record<string, Agent>> = {claude: 'claude_code', 'claude-code': 'claude_code', claude_code: 'claude_code', codex: 'codex'}

export const SPAWNABLE_AGENTS = ['claude', 'codex'] as const

export function agentFromName(name: string): Agent | null {
  return ALIASES[name] ?? null
}

/** The template for one agent and kind: the config's (under any of the agent's names), else the default. */
export function commandTemplate(agent: Agent, kind: CommandKind, config: Pick<CastConfig, 'agents'>): readonly string[] | null {
  for (const [name, cmds] of Object.entries(config.agents)) {
    if (agentFromName(name) === agent || name === agent) {
      const t = cmds[kind]
      if (t) return t
    }
  }

  return DEFAULT_AGENT_COMMANDS[agent]?.[kind] ?? null
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
/** What each agent's own session ids look like; an id that does not match is never passed on. */
const ID_SYNTAX: Readonly<Partial<Record<Agent, RegExp>>> = {
  claude_code: UUID,
  codex: UUID,
  copilot: UUID,
}
/** Any other agent: a word that cannot be read as an option. */
const GENERIC_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/

/** Does `id` have the agent's id syntax? */
export function validAgentId(agent: Agent, id: string): boolean {
  return (ID_SYNTAX[agent] ?? GENERIC_ID).test(id)
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
      throw new TemplateError('the command template passes the message where a message beginning with "-" would be read as an option; put "--" before {prompt}')
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
