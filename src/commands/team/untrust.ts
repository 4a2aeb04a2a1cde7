import {Args} from '@oclif/core'

import {BaseCommand} from '../../lib/cli/base-command.js'

/** `cast team untrust DEVICE --json`. */
export interface TeamUntrustJson {
  device: string
  removed: true
}

export default class TeamUntrust extends BaseCommand {
  static override args = {
    device: Args.string({description: 'The teammate machine to stop trusting.', required: true}),
  }
  static override description = `Removes DEVICE's key from this machine's trust list: from now on every action DEVICE queues for
this machine is refused, whatever the team store says, until it is trusted again. This is how a
lost or compromised machine is revoked (each teammate runs it; the admin also removes its login).
Exit 3 when DEVICE was not trusted.`
  static override examples = ['<%= config.bin %> <%= command.id %> old-laptop']
  static override summary = "Stop trusting a teammate machine's key."

  async run(): Promise<TeamUntrustJson> {
    const {args} = await this.parse(TeamUntrust)
    const {castHome} = await import('../../lib/home/env.js')
    const {untrustDevice} = await import('../../lib/team/trust.js')
    untrustDevice(castHome(this.env), args.device)
    if (!this.jsonEnabled()) this.log(`${args.device} is no longer trusted: its actions are refused on this machine.`)
    return {device: args.device, removed: true}
  }
}
