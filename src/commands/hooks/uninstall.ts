import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../lib/base-command.js'
import {EXIT} from '../../lib/exit-codes.js'
import type {UninstallResult} from '../../lib/hooks-install.js'

export default class HooksUninstall extends BaseCommand {
  static override args = {
    agent: Args.string({description: 'claude-code, codex, gemini, cursor or copilot.', required: true}),
  }
  static override description = `Takes exactly cast's entries out of the agent CLI's settings (the ones that run cast-hook) and leaves everything else as it was. The file is backed up first and written atomically. For Codex, cast's notify line in config.toml goes too (a notify of your own stays). A hooks file that held nothing but cast's entries (Codex's hooks.json, Cursor's hooks.json, Copilot's hooks/cast.json) is deleted rather than left empty.`
  static override examples = ['<%= config.bin %> <%= command.id %> claude-code', '<%= config.bin %> <%= command.id %> codex --json']
  static override flags = {
    'dry-run': Flags.boolean({summary: 'Show what would be removed; write nothing.'}),
  }
  static override summary = "Remove cast's hooks from an agent CLI's settings."

  async run(): Promise<UninstallResult> {
    const {args, flags} = await this.parse(HooksUninstall)
    const {HooksFileError, lookupHookSpec, tildePath, uninstallHooks} = await import('../../lib/hooks-install.js')
    const found = lookupHookSpec(args.agent)
    if (!('spec' in found)) this.fail(found.message, EXIT.USAGE, found.suggestions)
    let result: UninstallResult
    try {
      result = uninstallHooks(found.spec, {dryRun: flags['dry-run'], env: this.env, now: Date.now()})
    } catch (error) {
      if (error instanceof HooksFileError) this.fail(error.message, EXIT.FAILURE, [`Fix ${error.file} (or move it aside), then run this again.`])
      throw error
    }

    if (this.jsonEnabled()) return result
    const t = (p: string): string => tildePath(p, this.env)
    const verb = result.dry_run ? 'Would remove' : 'Removed'
    if (result.removed.length === 0) {
      this.log(`No cast hooks for ${result.label} in ${t(result.file)}.`)
    } else {
      this.log(`${verb} cast's hooks for ${result.label} from ${t(result.file)}${result.deleted ? ' (nothing else was in it: file deleted)' : ''}`)
      this.log(`  events    ${result.removed.join(', ')}`)
      if (result.backup) this.log(`  backup    ${t(result.backup)}`)
    }

    const tm = result.toml
    if (tm) {
      if (tm.result === 'removed') this.log(`  ${tm.key.padEnd(9)} ${verb.toLowerCase()} from ${t(tm.file)}${tm.backup ? ` (backup ${t(tm.backup)})` : ''}`)
      else if (tm.result === 'taken') this.log(`  ${tm.key.padEnd(9)} ${t(tm.file)} runs ${tm.value}, not cast's; left as it is`)
    }

    return result
  }
}
