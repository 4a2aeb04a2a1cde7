import {Flags} from '@oclif/core'

import {BaseCommand} from '../../lib/cli/base-command.js'
import {EXIT} from '../../lib/base/exit-codes.js'
import {teamFamilies} from '../../core/store/families.js'

/** `cast team keys --json`: this machine's key and every teammate's beside the trust list. */
export interface TeamKeysJson {
  device: string
  fingerprint: string
  rotated: boolean
  keys: {device: string; who: string; fingerprint: string | null; status: string; pinned: {fingerprint: string; who: string} | null}[]
}

export default class TeamKeys extends BaseCommand {
  static override description = `Every machine of the team with the identity and key fingerprint the team store has for it,
and whether this machine trusts that key: "trusted" (pinned with cast team trust, unchanged),
"changed" (the server has another key or identity than the one pinned: actions from it are
refused until you check it and trust it again), "new" (never trusted), "gone" (trusted, no
longer on the server), "no key". Actions a teammate queues for this machine are carried out
only when signed with a key trusted here.

--rotate makes this machine a new key (the old one is gone) and publishes it: teammates see
"changed" and trust it again after checking its fingerprint with you.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {
      command: '<%= config.bin %> <%= command.id %> --rotate',
      description: 'A new key for this machine (e.g. the old one may have leaked).',
    },
  ]
  static override flags = {
    rotate: Flags.boolean({summary: 'Make a new key for this machine and publish it.'}),
  }
  static override summary = "Teammates' keys and whether this machine trusts them."

  async run(): Promise<TeamKeysJson> {
    const {flags} = await this.parse(TeamKeys)
    const {loadConfig} = await import('../../lib/home/config.js')
    const {teamTarget} = await teamFamilies.client()
    const {castHome, deviceName} = await import('../../lib/home/env.js')
    const {KeyFileError, machineKey, rotateKey} = await import('../../lib/team/keys.js')
    const {keyLineText, linesFor, publishKey, serverKeys} = await import('../../lib/team/trust.js')
    const target = teamTarget(this.env, await loadConfig(this.env))
    if (!target) this.fail('Not in a team. Join one with: cast team join postgres://USER:PASSWORD@HOST/DB', EXIT.USAGE)
    const home = castHome(this.env)
    const device = deviceName(this.env)
    let key
    try {
      key = flags.rotate ? rotateKey(home) : machineKey(home)
    } catch (error) {
      if (error instanceof KeyFileError) this.fail(error.message, EXIT.FAILURE)
      throw error
    }

    if (flags.rotate) await publishKey(target.url, device, key.pubkey)
    const lines = linesFor(home, await serverKeys(target.url), device)
    if (!this.jsonEnabled()) {
      if (flags.rotate)
        this.log(`New key for ${device}: ${key.fingerprint} (published; teammates trust it again with cast team trust ${device}).`)
      else this.log(`this machine: ${device} ${key.fingerprint}`)
      for (const l of lines) if (l.device !== device) this.log(keyLineText(l))
      if (lines.some((l) => l.status === 'new' || l.status === 'changed')) {
        this.log('Trust a key after checking its fingerprint with its owner: cast team trust DEVICE')
      }
    }

    return {device, fingerprint: key.fingerprint, keys: lines.map((l) => ({...l})), rotated: flags.rotate}
  }
}
