import {Args} from '@oclif/core'

import {BaseCommand} from '../../lib/cli/base-command.js'
import {EXIT} from '../../lib/base/exit-codes.js'
import type {StatusResult} from '../../lib/agents/hooks/index.js'
import {exampleHookAgent, hookAgentNames} from '../../lib/agents/hooks/specs.js'

export default class HooksStatus extends BaseCommand {
  static override args = {
    agent: Args.string({description: `Only this agent (${hookAgentNames(', ')}).`}),
  }
  static override description = `For each agent CLI: the settings file cast's hooks go in, which events have cast's entry and which are missing, the command they run, and whether the hook script it points to exists. "stale" means cast's entries run another command than an install would write now (another cast-hook path or another CAST_HOME): run "cast hooks install <agent>" again to update them.`
  static override examples = ['<%= config.bin %> <%= command.id %>', `<%= config.bin %> <%= command.id %> ${exampleHookAgent(0)} --json`]
  static override summary = "Show where cast's hooks are installed."

  async run(): Promise<{agents: StatusResult[]}> {
    const {args} = await this.parse(HooksStatus)
    const {HOOK_SPECS, hooksStatus, lookupHookSpec, tildePath} = await import('../../lib/agents/hooks/index.js')
    let specs = HOOK_SPECS
    if (args.agent !== undefined) {
      const found = lookupHookSpec(args.agent)
      if (!('spec' in found)) this.fail(found.message, EXIT.USAGE, found.suggestions)
      specs = [found.spec]
    }

    const agents = specs.map((spec) => hooksStatus(spec, {env: this.env}))
    if (this.jsonEnabled()) return {agents}
    const t = (p: string): string => tildePath(p, this.env)
    const STATE: Record<StatusResult['state'], string> = {
      error: 'unreadable',
      installed: 'installed',
      not_installed: 'not installed',
      partial: 'partly installed',
      stale: 'installed, stale',
    }
    for (const [i, a] of agents.entries()) {
      if (i > 0) this.log('')
      this.log(`${a.label.padEnd(13)} ${STATE[a.state]}`)
      this.log(`  file      ${t(a.file)}${a.file_exists ? '' : ' (does not exist)'}`)
      if (a.error !== null) {
        this.log(`  error     ${a.error}`)
        continue
      }

      const total = a.events_installed.length + a.events_missing.length
      if (a.events_installed.length > 0) this.log(`  events    ${a.events_installed.length}/${total}: ${a.events_installed.join(', ')}`)
      if (a.events_missing.length > 0 && a.events_installed.length > 0) this.log(`  missing   ${a.events_missing.join(', ')}`)
      if (a.command !== null) {
        this.log(`  command   ${a.command}`)
        this.log(
          `  binary    ${a.binary ?? '(none found in the command)'} ${a.binary_exists ? '(ok)' : '(MISSING: hooks fail until you reinstall)'}`,
        )
        if (a.state === 'stale') this.log(`  expected  ${a.expected_command}`)
      }

      if (a.toml) {
        const tm = a.toml
        const what = tm.state === 'absent' ? 'not set' : tm.state === 'taken' ? `your own: ${tm.value}` : `${tm.state}: ${tm.value}`
        this.log(`  ${tm.key.padEnd(9)} ${what} (${t(tm.file)})`)
      }

      for (const note of a.notes) this.log(`  note: ${note}`)
    }

    return {agents}
  }
}
