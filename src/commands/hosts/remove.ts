import {Args} from '@oclif/core'

import {BaseCommand} from '../../lib/cli/base-command.js'
import {EXIT} from '../../lib/base/exit-codes.js'

export default class HostsRemove extends BaseCommand {
  static override args = {
    name: Args.string({description: "The host's name (cast hosts list).", required: true}),
  }
  static override description = `Takes the host out of cast's config and drops its cached listing. Nothing changes on the host.`
  static override examples = [
    {
      command: '<%= config.bin %> <%= command.id %> laptop',
      description: 'Forget laptop; a name that is not recorded is one line (exit 3).',
    },
  ]
  static override summary = 'Remove a machine from the fleet.'

  async run(): Promise<{name: string; removed: true}> {
    const {args} = await this.parse(HostsRemove)
    const {configPath, loadConfig} = await import('../../lib/home/config.js')
    const {removeHost} = await import('../../lib/fleet/hosts.js')
    const {dropCache} = await import('../../lib/fleet/cache.js')
    const config = await loadConfig(this.env)
    const names = (config.hosts ?? []).map((h) => h.name)
    if (!removeHost(configPath(this.env), args.name)) {
      this.fail(
        `No host named ${JSON.stringify(args.name)}${names.length > 0 ? ` (hosts: ${names.join(', ')})` : ': "cast hosts add NAME [user@]host[:port]" adds one'}.`,
        EXIT.NOT_FOUND,
      )
    }

    dropCache(this.env, args.name)
    if (!this.jsonEnabled()) this.log(`Removed ${args.name}.`)
    return {name: args.name, removed: true}
  }
}
