import {Args} from '@oclif/core'

import {BaseCommand} from '../../lib/cli/base-command.js'
import {teamAdminCall} from '../../lib/team/admin.js'
import {teamFamilies} from '../../core/store/families.js'

/** `cast team admit --json`: the binding made. */
export interface TeamAdmitJson {
  role: string
  who: string
}

export default class TeamAdmit extends BaseCommand {
  static override args = {
    role: Args.string({description: "The machine's PostgreSQL login role.", required: true}),
    email: Args.string({description: 'The person it belongs to (their cast identity, usually their git email).', required: true}),
  }
  static override description = `The team's admin (the schema's owner, a member of cast_team_admin, or a superuser) binds
a login role to one person. The team store then writes that identity, and only it, for
everything the role's machines publish and request: a member cannot speak for anyone else.
Admitting a role again re-binds it (its machines take the new identity). One person, one role
per machine is the usual setup; an identity is bound to one role at a time.`
  static override examples = ['<%= config.bin %> <%= command.id %> laptop_ana ana@example.com']
  static override summary = 'Bind a login role to a person (admin only).'

  async run(): Promise<TeamAdmitJson> {
    const {args} = await this.parse(TeamAdmit)
    const {admitMember} = await teamFamilies.calls()
    await teamAdminCall({env: this.env, fail: (m, x) => this.fail(m, x)}, (c) => admitMember(c, args.role, args.email))
    if (!this.jsonEnabled()) this.log(`Admitted role ${args.role} as ${args.email}.`)
    return {role: args.role, who: args.email}
  }
}
