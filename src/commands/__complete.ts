import {Args} from '@oclif/core'

import {BaseCommand} from '../lib/cli/base-command.js'

/** The values shell completion offers (bin/run.js answers it without oclif; this is the same code). */
export default class Complete extends BaseCommand {
  static override args = {
    kind: Args.string({description: 'states, agents, sessions, hook-agents or presences.', required: true}),
    prefix: Args.string({description: 'What is typed so far.'}),
  }
  static override description = 'Prints the values a shell completes for KIND, one a line: value, a tab, a description.'
  static override enableJsonFlag = false
  static override hidden = true
  static override summary = 'Values for shell completion (used by the completion scripts).'

  async run(): Promise<void> {
    const {args} = await this.parse(Complete)
    const {fastComplete} = await import('../lib/cli/complete-values.js')
    await fastComplete([args.kind, args.prefix ?? ''])
  }
}
