import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../lib/cli/base-command.js'
import {EXIT} from '../../lib/base/exit-codes.js'
import type {HookSpec, McpOutcome, UninstallResult} from '../../lib/agents/hooks/index.js'
import {exampleHookAgent, hookAgentNames, hooksOnlyFilesText, tomlProgramsText} from '../../lib/agents/hooks/specs.js'

export type HooksUninstallResult = UninstallResult | {readonly agents: UninstallResult[]}

export default class HooksUninstall extends BaseCommand {
  static override args = {
    agent: Args.string({description: `${hookAgentNames()} (or --all).`, required: false}),
  }
  static override description = `Takes exactly cast's entries out of the agent CLI's settings (the ones that run cast-hook) and leaves everything else as it was. The file is backed up first and written atomically. ${tomlProgramsText()} line in its TOML config goes too when it is cast's (one of your own stays). A hooks file that held nothing but cast's entries (${hooksOnlyFilesText()}) is deleted rather than left empty.

--all does this for every agent with hooks: run it before uninstalling cast, so no agent is left running a hook command that no longer exists.`
  static override examples = [
    `<%= config.bin %> <%= command.id %> ${exampleHookAgent(0)}`,
    `<%= config.bin %> <%= command.id %> ${exampleHookAgent(1)} --json`,
    '<%= config.bin %> <%= command.id %> --all',
  ]
  static override flags = {
    all: Flags.boolean({summary: 'Every agent with hooks (before uninstalling cast).'}),
    'dry-run': Flags.boolean({summary: 'Show what would be removed; write nothing.'}),
  }
  static override summary = "Remove cast's hooks from an agent CLI's settings."

  async run(): Promise<HooksUninstallResult> {
    const {args, flags} = await this.parse(HooksUninstall)
    const {HOOK_SPECS, HooksFileError, lookupHookSpec, tildePath, uninstallHooks} = await import('../../lib/agents/hooks/index.js')
    if (flags.all && args.agent) this.fail('Name one agent or --all, not both.', EXIT.USAGE)
    if (!flags.all && !args.agent)
      this.fail('Name the agent whose hooks to remove, or --all.', EXIT.USAGE, ['cast hooks status   lists what is installed.'])
    let specs: readonly HookSpec[]
    if (flags.all) specs = HOOK_SPECS
    else {
      const found = lookupHookSpec(args.agent!)
      if (!('spec' in found)) this.fail(found.message, EXIT.USAGE, found.suggestions)
      specs = [found.spec]
    }

    const {uninstallMcp} = await import('../../lib/agents/hooks/mcp.js')
    const results: (UninstallResult & {mcp?: McpOutcome})[] = []
    for (const spec of specs) {
      try {
        const r = uninstallHooks(spec, {dryRun: flags['dry-run'], env: this.env, now: Date.now()})
        // cast's MCP server entry (hooks install --mcp) goes with the hooks; a foreign "cast" entry stays.
        const mcp = uninstallMcp(spec, {dryRun: flags['dry-run'], env: this.env, now: Date.now()})
        results.push(mcp?.result === 'removed' ? {...r, mcp} : r)
      } catch (error) {
        if (error instanceof HooksFileError)
          this.fail(error.message, EXIT.FAILURE, [`Fix ${error.file} (or move it aside), then run this again.`])
        throw error
      }
    }

    if (!this.jsonEnabled()) for (const r of results) this.show(r, flags.all, (p) => tildePath(p, this.env))
    return flags.all ? {agents: results} : results[0]!
  }

  private show(result: UninstallResult & {mcp?: McpOutcome}, quietWhenNone: boolean, t: (p: string) => string): void {
    if (result.mcp)
      this.log(
        `${result.dry_run ? 'Would remove' : 'Removed'} cast's MCP server "${result.mcp.name}" from ${t(result.mcp.file)}${result.mcp.backup ? ` (backup ${t(result.mcp.backup)})` : ''}`,
      )
    const verb = result.dry_run ? 'Would remove' : 'Removed'
    if (result.removed.length === 0) {
      if (!quietWhenNone || !result.toml || result.toml.result !== 'removed')
        this.log(`No cast hooks for ${result.label} in ${t(result.file)}.`)
    } else {
      this.log(
        `${verb} cast's hooks for ${result.label} from ${t(result.file)}${result.deleted ? ' (nothing else was in it: file deleted)' : ''}`,
      )
      this.log(`  events    ${result.removed.join(', ')}`)
      if (result.backup) this.log(`  backup    ${t(result.backup)}`)
    }

    const tm = result.toml
    if (tm) {
      if (tm.result === 'removed')
        this.log(`  ${tm.key.padEnd(9)} ${verb.toLowerCase()} from ${t(tm.file)}${tm.backup ? ` (backup ${t(tm.backup)})` : ''}`)
      else if (tm.result === 'taken') this.log(`  ${tm.key.padEnd(9)} ${t(tm.file)} runs ${tm.value}, not cast's; left as it is`)
    }
  }
}
