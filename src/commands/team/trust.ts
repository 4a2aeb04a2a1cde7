import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../lib/cli/base-command.js'
import {EXIT} from '../../lib/base/exit-codes.js'
import {teamFamilies} from '../../core/store/families.js'

/** `cast team trust DEVICE --json`: the key now pinned, and the one it replaced. */
export interface TeamTrustJson {
  device: string
  who: string
  fingerprint: string
  previous: {fingerprint: string; who: string} | null
}

export default class TeamTrust extends BaseCommand {
  static override args = {
    device: Args.string({description: 'The teammate machine (its name in cast team keys).', required: true}),
  }
  static override description = `Pins the key the team store has for DEVICE now, with the identity it is registered to, in
this machine's trust list (team-trust.json in CAST_HOME, mode 0600). From then on this machine
carries out actions DEVICE signs with that key, when that identity owns or runs the session; a
later change of DEVICE's key or identity is refused until it is trusted again. Check the
fingerprint with its owner first (cast team keys on their machine shows it), or pass it with
--fingerprint: then nothing is trusted unless it matches.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> ana-laptop',
    '<%= config.bin %> <%= command.id %> ana-laptop --fingerprint SHA256:3b0cXc2h…',
  ]
  static override flags = {
    fingerprint: Flags.string({helpValue: 'SHA256:…', summary: "Trust only if the server's key has this fingerprint."}),
  }
  static override summary = "Trust a teammate machine's key."

  async run(): Promise<TeamTrustJson> {
    const {args, flags} = await this.parse(TeamTrust)
    const {loadConfig} = await import('../../lib/home/config.js')
    const {teamTarget} = await teamFamilies.client()
    const {castHome, deviceName} = await import('../../lib/home/env.js')
    const {serverKeys, trustDevice} = await import('../../lib/team/trust.js')
    const target = teamTarget(this.env, await loadConfig(this.env))
    if (!target) this.fail('Not in a team. Join one with: cast team join postgres://USER:PASSWORD@HOST/DB', EXIT.USAGE)
    const r = trustDevice(castHome(this.env), await serverKeys(target.url), args.device, deviceName(this.env), {
      expect: flags.fingerprint,
      now: Date.now(),
    })
    if (!this.jsonEnabled()) {
      const was = r.previous ? ` (replaces ${r.previous.fingerprint} of ${r.previous.who})` : ''
      this.log(`Trusted ${r.device} as ${r.who}: ${r.fingerprint}${was}.`)
    }

    return {...r}
  }
}
