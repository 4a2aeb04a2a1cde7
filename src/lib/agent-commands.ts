/**
 * How cast starts and resumes each agent CLI: argv templates with `{prompt}`, `{id}` (the
 * agent's own session id) and `{cwd}`, overridable per agent in the config's `agents` key, so a
 * wrapper (or a test's fake agent) can stand in for the real binary.
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
    headless: ['claude', '--session-id', '{id}', '-p', '{prompt}'],
    interactive: ['claude', '--session-id', '{id}', '{prompt}'],
    resume: ['claude', '--resume', '{id}', '-p', '{prompt}'],
  },
  codex: {
    headless: ['codex', 'exec', '--cd', '{cwd}', '{prompt}'],
    interactive: ['codex', '--cd', '{cwd}', '{prompt}'],
    resume: ['codex', 'exec', 'resume', '{id}', '{prompt}'],
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

/** Fill a template. A placeholder is replaced inside any argument; an argument is never split. */
export function fillTemplate(template: readonly string[], values: {prompt?: string; id?: string; cwd?: string}): string[] {
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
