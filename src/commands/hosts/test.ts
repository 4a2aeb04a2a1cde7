import {Args} from '@oclif/core'

import {BaseCommand} from '../../lib/cli/base-command.js'
import {EXIT} from '../../lib/base/exit-codes.js'

/** `cast hosts test --json`: each host asked, and what it answered. */
export interface HostsTestJson {
  hosts: {name: string; ok: boolean; version: string | null; problem: string | null; line: string; ms: number | null}[]
}

export default class HostsTest extends BaseCommand {
  static override args = {
    name: Args.string({description: 'The host to test (default: every host).'}),
  }
  static override description = `Runs "cast --version" on each host over ssh (in parallel) and prints one line each: the
version and the round trip, or why not (unreachable, cast missing or too old, with the install
command). Exit 1 when any host fails.`
  static override examples = [
    {command: '<%= config.bin %> <%= command.id %>', description: 'Ask every host at once; with none recorded, one line (exit 3).'},
    {
      command: '<%= config.bin %> <%= command.id %> laptop',
      description: 'Ask laptop only; a name that is not recorded is one line (exit 3).',
    },
  ]
  static override summary = 'Check that each machine of the fleet answers.'

  async run(): Promise<HostsTestJson> {
    const {args} = await this.parse(HostsTest)
    const {loadConfig} = await import('../../lib/home/config.js')
    const {checkHost, hostSpec} = await import('../../lib/fleet/hosts.js')
    const {oneLine} = await import('../../core/model/sanitize.js')
    const config = await loadConfig(this.env)
    const all = config.hosts ?? []
    const wanted = args.name === undefined ? all.map((h) => h.name) : [args.name]
    if (all.length === 0) this.fail('No hosts. "cast hosts add NAME [user@]host[:port]" adds one.', EXIT.NOT_FOUND)
    const unknown = wanted.filter((n) => !all.some((h) => h.name === n))
    if (unknown.length > 0)
      this.fail(
        `No host named ${unknown.map((n) => JSON.stringify(n)).join(', ')} (hosts: ${all.map((h) => h.name).join(', ')}).`,
        EXIT.NOT_FOUND,
      )
    const results = await Promise.all(
      all
        .filter((h) => wanted.includes(h.name))
        .map(async (h) => {
          const c = await checkHost(hostSpec(h), this.env, 20_000)
          return c.ok
            ? {line: `${h.name}: ok — cast ${c.version}, ${c.ms} ms`, ms: c.ms, name: h.name, ok: true, problem: null, version: c.version}
            : {line: c.line, ms: null, name: h.name, ok: false, problem: c.problem, version: c.version}
        }),
    )
    if (!this.jsonEnabled()) for (const r of results) this.log(oneLine(r.line))
    if (results.some((r) => !r.ok)) process.exitCode = EXIT.FAILURE
    return {hosts: results}
  }
}
