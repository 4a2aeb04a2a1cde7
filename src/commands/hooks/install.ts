import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../lib/cli/base-command.js'
import {EXIT} from '../../lib/base/exit-codes.js'
import type {InstallResult, McpOutcome} from '../../lib/agents/hooks/index.js'
import {exampleHookAgent, hookAgentNames, hookFilesText, nudgeAgentLabels} from '../../lib/agents/hooks/specs.js'

export default class HooksInstall extends BaseCommand {
  static override args = {
    agent: Args.string({description: `${hookAgentNames()}.`, required: true}),
  }
  static override description = `Merges cast's hook entries into the agent CLI's own settings, so the moments its files cannot show (a permission prompt, a turn starting or ending) reach cast as they happen.

Every other key and every hook you had stay as they were. The file is backed up first (<file>.cast-backup-<timestamp>) and written atomically; a malformed file is refused untouched. Installing twice adds nothing; an entry left by another cast install is replaced.

The hook command only drops the event's JSON into the spool under CAST_HOME and exits 0: it never opens the database and never blocks the agent.

The nudge (${nudgeAgentLabels()}, on by default, --no-nudge to skip): when a turn ends and the agent has not said who acts next with "cast state --status done|blocked|dormant", the Stop hook asks it once, in the agent's own protocol, to declare; never twice per turn, never for a subagent, never when the turn ended on a question or an error. SessionStart adds the same guidance as context, and a presence change reaches the session as context on its next prompt. When CAST_HOME (or XDG_DATA_HOME) is set, its store is written into the command, so hooks feed the store you run cast with.

Where: ${hookFilesText()}.`
  static override examples = [
    `<%= config.bin %> <%= command.id %> ${exampleHookAgent(0)}`,
    {
      command: `<%= config.bin %> <%= command.id %> ${exampleHookAgent(1)} --dry-run`,
      description: 'Show what would change, write nothing.',
    },
    `<%= config.bin %> <%= command.id %> ${exampleHookAgent(2)} --json`,
  ]
  static override flags = {
    'dry-run': Flags.boolean({summary: 'Show what would change and the resulting file; write nothing.'}),
    mcp: Flags.boolean({
      summary: "Also add cast's MCP server (cast mcp) to the agent's own MCP configuration (its mcpServers), where cast knows the file.",
    }),
    nudge: Flags.boolean({
      allowNo: true,
      default: true,
      summary: `${nudgeAgentLabels()}: ask the agent, once per turn that ends undeclared, to run cast state (--no-nudge: only spool).`,
    }),
  }
  static override summary = "Add cast's hooks to an agent CLI's settings."

  async run(): Promise<InstallResult & {mcp?: McpOutcome}> {
    const {args, flags} = await this.parse(HooksInstall)
    const {HooksFileError, installHooks, lookupHookSpec, tildePath} = await import('../../lib/agents/hooks/index.js')
    const found = lookupHookSpec(args.agent)
    if (!('spec' in found)) this.fail(found.message, EXIT.USAGE, found.suggestions)
    const {installMcp, mcpConfigPath} = await import('../../lib/agents/hooks/mcp.js')
    if (flags.mcp && mcpConfigPath(found.spec, this.env) === null)
      this.fail(
        `--mcp: cast writes no MCP configuration for ${found.spec.label} yet; add "cast mcp" to its MCP servers by hand.`,
        EXIT.USAGE,
        ['See docs/mcp.md.'],
      )
    let result: InstallResult & {mcp?: McpOutcome}
    try {
      result = installHooks(found.spec, {dryRun: flags['dry-run'], env: this.env, now: Date.now(), nudge: flags.nudge})
      if (flags.mcp) result = {...result, mcp: installMcp(found.spec, {dryRun: flags['dry-run'], env: this.env, now: Date.now()})}
    } catch (error) {
      if (error instanceof HooksFileError)
        this.fail(error.message, EXIT.FAILURE, [`Fix ${error.file} (or move it aside), then run this again.`])
      throw error
    }

    if (this.jsonEnabled()) return result
    const t = (p: string): string => tildePath(p, this.env)
    const where = t(result.file)
    const verb = result.dry_run ? 'Would install' : 'Installed'
    if (!result.changed) {
      this.log(`cast's hooks for ${result.label} are already installed in ${where}; nothing changed.`)
    } else if (result.added.length + result.updated.length + result.dropped.length === 0) {
      this.log(`${verb} cast's hooks for ${result.label}: ${where} already had them.`)
    } else {
      this.log(`${verb} cast's hooks for ${result.label} in ${where}${result.created ? ' (new file)' : ''}`)
      if (result.added.length > 0) this.log(`  added     ${result.added.join(', ')}`)
      if (result.updated.length > 0) this.log(`  updated   ${result.updated.join(', ')}`)
      if (result.dropped.length > 0) this.log(`  removed   ${result.dropped.join(', ')} (no longer used)`)
    }

    this.log(`  command   ${result.command}`)
    if (result.nudge)
      this.log(
        `  nudge     on: a turn that ends without "cast state --status done|blocked|dormant" is asked once to declare (--no-nudge to skip)`,
      )
    if (result.backup) this.log(`  backup    ${t(result.backup)}`)
    if (result.toml) {
      const tm = result.toml
      const file = t(tm.file)
      if (tm.result === 'taken') this.log(`  ${tm.key.padEnd(9)} ${file} already runs ${tm.value}; left as it is`)
      else if (tm.result === 'unchanged') this.log(`  ${tm.key.padEnd(9)} already set in ${file}`)
      else
        this.log(`  ${tm.key.padEnd(9)} ${result.dry_run ? 'would set' : 'set'} in ${file}${tm.backup ? ` (backup ${t(tm.backup)})` : ''}`)
    }

    if (result.mcp) this.log(`  mcp       ${mcpLine(result.mcp, result.dry_run, t)}`)
    if (result.changed) for (const note of result.notes) this.log(`  note: ${note}`)
    if (result.dry_run && result.preview !== undefined) {
      this.log('')
      this.log(`${where} would read:`)
      this.log(result.preview.trimEnd())
    }

    return result
  }
}

function mcpLine(m: McpOutcome, dry: boolean, t: (p: string) => string): string {
  const where = t(m.file)
  if (m.result === 'unchanged') return `"${m.name}" already in ${where}`
  if (m.result === 'taken') return `${where} has an MCP server named "${m.name}" that is not cast's; left as it is`
  const verb = dry ? 'would add' : m.result === 'updated' ? 'updated' : 'added'
  return `${verb} "${m.name}" (cast mcp) in ${where}${m.backup ? ` (backup ${t(m.backup)})` : ''}`
}
