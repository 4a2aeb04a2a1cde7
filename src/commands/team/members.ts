import {BaseCommand} from '../../lib/cli/base-command.js'
import {teamAdminCall} from '../../lib/team/admin.js'
import {teamFamilies, text} from '../../core/store/families.js'

export interface TeamMemberJson {
  admitted_at: string
  admitted_by: string
  devices: string[]
  role: string
  who: string
}

export default class TeamMembers extends BaseCommand {
  static override description = `Every login role the team's admin bound to a person, with the devices its machines
registered. Any member may list them.`
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
  static override summary = "The team's members: role, person, devices."

  async run(): Promise<TeamMemberJson[]> {
    await this.parse(TeamMembers)
    const {listMembers} = await teamFamilies.calls()
    const list = await teamAdminCall({env: this.env, fail: (m, x) => this.fail(m, x)}, (c) => listMembers(c))
    if (!this.jsonEnabled()) {
      if (list.length === 0) this.log('No members yet: the admin runs cast team admit ROLE EMAIL.')
      for (const m of list)
        this.log(`${text(m.role)}  ${text(m.who)}  ${m.devices.length > 0 ? m.devices.map((d) => text(d)).join(', ') : '(no device)'}`)
    }

    return list.map((m) => ({
      admitted_at: m.admittedAt.toISOString(),
      admitted_by: m.admittedBy,
      devices: [...m.devices],
      role: m.role,
      who: m.who,
    }))
  }
}
