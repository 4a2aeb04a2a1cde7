import {BaseCommand} from '../../lib/cli/base-command.js'

/** `cast hosts list --json`: the configured hosts, in the order added. */
export interface HostsListJson {
  hosts: {name: string; target: string; budget_ms: number}[]
}

export default class HostsList extends BaseCommand {
  static override description = `The machines "cast hosts add" recorded, with each one's time budget (fleet.budget, or the
host's own budget key). "cast hosts test" asks each one.`
  static override examples = ['<%= config.bin %> <%= command.id %>']
  static override summary = 'List the machines of the fleet.'

  async run(): Promise<HostsListJson> {
    await this.parse(HostsList)
    const {loadConfig} = await import('../../lib/home/config.js')
    const {oneLine} = await import('../../core/model/sanitize.js')
    const config = await loadConfig(this.env)
    const budget = config.fleet?.budgetMs ?? 1500
    const hosts = (config.hosts ?? []).map((h) => ({budget_ms: h.budgetMs ?? budget, name: h.name, target: h.target}))
    if (!this.jsonEnabled()) {
      if (hosts.length === 0) this.log('No hosts. "cast hosts add NAME [user@]host[:port]" adds one.')
      for (const h of hosts) this.log(`${h.name}  ${oneLine(h.target)}  budget ${h.budget_ms} ms`)
    }

    return {hosts}
  }
}
