import {Args} from '@oclif/core'

import {BaseCommand} from '../../lib/cli/base-command.js'
import {teamAdminCall} from '../../lib/team/admin.js'
import {teamFamilies} from '../../core/store/families.js'

/** `cast team remove --json`: the role unbound and how many of its machines left the team. */
export interface TeamRemoveJson {
  machines: number
  role: string
}

export default class TeamRemove extends BaseCommand {
  static override args = {
    role: Args.string({description: 'The login role to unbind.', required: true}),
  }
  static override description = `The team's admin unbinds a role: its machines leave the team (their session rows are
removed, actions still queued for them are refused, their device names are released) and the
role can no longer publish or request anything. The role itself stays on the server (DROP ROLE
is the database admin's).`
  static override examples = ['<%= config.bin %> <%= command.id %> laptop_ana']
  static override summary = 'Unbind a role from the team (admin only).'

  async run(): Promise<TeamRemoveJson> {
    const {args} = await this.parse(TeamRemove)
    const {removeMember} = await teamFamilies.calls()
    const machines = await teamAdminCall({env: this.env, fail: (m, x) => this.fail(m, x)}, (c) => removeMember(c, args.role))
    if (!this.jsonEnabled()) this.log(`Removed role ${args.role}: ${machines} machine(s) left the team.`)
    return {machines, role: args.role}
  }
}
