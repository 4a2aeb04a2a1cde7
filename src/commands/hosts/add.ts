import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../lib/cli/base-command.js'
import {EXIT} from '../../lib/base/exit-codes.js'

/** `cast hosts add --json`: the host recorded, and what its cast said. */
export interface HostsAddJson {
  name: string
  target: string
  version: string | null
  checked: boolean
}

export default class HostsAdd extends BaseCommand {
  static override args = {
    name: Args.string({description: 'A short name for the machine (lowercase letters, digits, - and _).', required: true}),
    target: Args.string({description: '[user@]host[:port], or an alias of your ~/.ssh/config.', required: true}),
  }
  static override description = `Records another machine of yours in cast's config, reached with your own ssh (your
~/.ssh/config, agent, ProxyJump and control sockets; BatchMode: never a password prompt). cast runs
"cast --version" there first and records the host only when a cast new enough answers; --no-check
records it without asking. docs/fleet.md says what goes over ssh.`
  static override examples = [
    {
      command: '<%= config.bin %> <%= command.id %> laptop ana@laptop.local --no-check',
      description: 'Record it as given (without --no-check, its cast is asked for its version first).',
    },
    {command: '<%= config.bin %> <%= command.id %> gpu gpu-box:2222 --no-check', description: 'A port, or an alias of your ~/.ssh/config.'},
  ]
  static override flags = {
    check: Flags.boolean({
      allowNo: true,
      default: true,
      summary: "Ask the host's cast for its version first (--no-check records it as given).",
    }),
  }
  static override summary = 'Add a machine to the fleet (over ssh).'

  async run(): Promise<HostsAddJson> {
    const {args, flags} = await this.parse(HostsAdd)
    const {parseHostSpec} = await import('../../lib/fleet/host-spec.js')
    const {checkHost, writeHost} = await import('../../lib/fleet/hosts.js')
    const {configPath, loadConfig} = await import('../../lib/home/config.js')
    let spec
    try {
      spec = parseHostSpec(args.name, args.target)
    } catch (error) {
      this.fail((error as Error).message, EXIT.USAGE)
    }

    const config = await loadConfig(this.env)
    const existing = config.hosts?.find((h) => h.name === spec.name)
    let version: string | null = null
    if (flags.check) {
      const c = await checkHost(spec, this.env, 20_000)
      if (!c.ok) this.fail(`${c.line}. Not added.`, c.problem === 'unreachable' ? EXIT.FAILURE : EXIT.REFUSED)
      version = c.version
    }

    writeHost(configPath(this.env), spec, args.target)
    if (!this.jsonEnabled()) {
      const was = existing && existing.target !== args.target ? ` (was ${existing.target})` : ''
      this.log(
        `${existing ? 'Updated' : 'Added'} ${spec.name}: ${args.target}${was}${version ? `, cast ${version}` : ', not checked'}. "cast sessions --fleet" lists its sessions.`,
      )
    }

    return {checked: flags.check, name: spec.name, target: args.target, version}
  }
}
