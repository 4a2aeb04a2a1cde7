import {Flags} from '@oclif/core'

import {nudgeHookNames, registry} from '../lib/agents/agent-commands.js'
import {BaseCommand} from '../lib/cli/base-command.js'
import {EXIT} from '../lib/base/exit-codes.js'

/** Which file each agent reads project instructions from (each agent module's instructionsFile), for the help text. */
function filesText(): string {
  const byFile = new Map<string, string[]>()
  for (const m of registry().modules) byFile.set(m.instructionsFile, [...(byFile.get(m.instructionsFile) ?? []), m.reading.label])
  const list = (names: string[]): string => (names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0]!)
  return [...byFile].map(([file, names]) => `${file} for ${list(names)}`).join(', ')
}

const FIRST = registry().modules[0]
/** The agents whose hooks carry the guidance (cast hooks install <name>). */
const NUDGED = nudgeHookNames()

export default class AgentInstructions extends BaseCommand {
  static override description = `Prints the paragraph an agent needs to file its own sessions: before it ends a turn, it says who acts next with "cast state --status done|blocked|dormant". Paste it into the file your agent reads (${filesText()}).

With "cast hooks install ${NUDGED}" the agents get the same guidance at each session's start and a one-time nudge when a turn ends undeclared; for the other agents this text is the way to tell them.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> >> AGENTS.md',
    ...(FIRST ? [`<%= config.bin %> <%= command.id %> --agent ${FIRST.names.aliases[0] ?? FIRST.id} >> ${FIRST.instructionsFile}`] : []),
  ]
  static override flags = {
    agent: Flags.string({helpValue: 'A', summary: 'The agent the text is for (names the file it goes in).'}),
  }
  static override summary = `Print the cast paragraph for an agent's instructions file (${[...new Set(['AGENTS.md', ...registry().modules.map((m) => m.instructionsFile)])].join(', ')}).`

  async run(): Promise<{agent: string | null; file: string; text: string}> {
    const {flags} = await this.parse(AgentInstructions)
    const {AGENT_GUIDANCE} = await import('../lib/ingest/turn-marks.js')
    let agent: string | null = null
    if (flags.agent !== undefined) {
      const m = registry().byAlias(flags.agent)
      if (!m) this.fail(`Unknown agent "${flags.agent}"; known: ${registry().ids.join(', ')}.`, EXIT.USAGE)
      agent = m.id
    }

    const file = agent === null ? 'AGENTS.md' : registry().byId(agent)!.instructionsFile
    const text = [
      '## cast: say who acts next',
      '',
      AGENT_GUIDANCE,
      '',
      'Examples:',
      '',
      '    cast state --status done "Shipped: the four fixes, tests green"',
      '    cast state --status blocked "Need the staging password to run the migration"',
      '    cast state --status dormant "Waiting on CI run 8841; it reports back by 3pm"',
      '',
    ].join('\n')
    if (!this.jsonEnabled()) process.stdout.write(text)
    return {agent, file, text}
  }
}
