import {Flags} from '@oclif/core'

import {BaseCommand} from '../lib/base-command.js'
import {EXIT} from '../lib/exit-codes.js'

/** Where each agent reads project instructions from. */
const FILES: Readonly<Record<string, string>> = {
  claude_code: 'CLAUDE.md',
  codex: 'AGENTS.md',
  copilot: '.github/copilot-instructions.md',
  cursor: 'AGENTS.md',
  gemini: 'GEMINI.md',
  opencode: 'AGENTS.md',
  pi: 'AGENTS.md',
}

export default class AgentInstructions extends BaseCommand {
  static override description = `Prints the paragraph an agent needs to file its own sessions: before it ends a turn, it says who acts next with "cast state --status done|blocked|dormant". Paste it into the file your agent reads (CLAUDE.md for Claude Code, AGENTS.md for Codex, OpenCode, pi and Cursor, GEMINI.md for Gemini CLI, .github/copilot-instructions.md for Copilot).

With "cast hooks install claude-code|codex" the agents get the same guidance at each session's start and a one-time nudge when a turn ends undeclared; for the other agents this text is the way to tell them.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> >> AGENTS.md',
    '<%= config.bin %> <%= command.id %> --agent claude-code >> CLAUDE.md',
  ]
  static override flags = {
    agent: Flags.string({helpValue: 'A', summary: 'The agent the text is for (names the file it goes in).'}),
  }
  static override summary = 'Print the cast paragraph for AGENTS.md / CLAUDE.md.'

  async run(): Promise<{agent: string | null; file: string; text: string}> {
    const {flags} = await this.parse(AgentInstructions)
    const {AGENT_GUIDANCE} = await import('../lib/turn-marks.js')
    let agent: string | null = null
    if (flags.agent !== undefined) {
      agent = flags.agent.trim().toLowerCase().replaceAll('-', '_')
      if (agent === 'claude') agent = 'claude_code'
      if (!(agent in FILES)) this.fail(`Unknown agent "${flags.agent}"; known: ${Object.keys(FILES).join(', ')}.`, EXIT.USAGE)
    }

    const file = agent === null ? 'AGENTS.md' : FILES[agent]!
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
