import {Flags} from '@oclif/core'

import {BaseCommand} from '../../lib/cli/base-command.js'
import {EXIT} from '../../lib/base/exit-codes.js'

export interface DevicesJson {
  devices: {id: string; name: string; created_at: string}[]
  revoked: string[]
}

export default class WebDevices extends BaseCommand {
  static override description = `Lists the devices paired with cast web (cast web pair), or revokes one: its credential
stops working at its next request and its open live streams close within a second.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {
      command: '<%= config.bin %> <%= command.id %> --revoke 3f9a1c2e',
      description: 'Revoke one device (its id from the list). The demo has paired none, so there is nothing to revoke (exit 3).',
    },
    {command: '<%= config.bin %> <%= command.id %> --revoke all', description: 'Revoke every device.'},
  ]
  static override flags = {
    revoke: Flags.string({helpValue: 'ID|all', summary: 'Revoke this device (or every one).'}),
  }
  static override summary = 'List or revoke the devices paired with cast web.'

  async run(): Promise<DevicesJson> {
    const {flags} = await this.parse(WebDevices)
    const {castHome} = await import('../../lib/home/env.js')
    const {listDevices, revokeDevices} = await import('../../lib/home/devices.js')
    const {oneLine} = await import('../../core/model/sanitize.js')
    const home = castHome(this.env)
    let revoked: string[] = []
    if (flags.revoke !== undefined) {
      const gone = revokeDevices(home, flags.revoke)
      for (const d of gone) (await import('../../lib/push/files.js')).dropSubscriptions(home, d.id)
      if (gone.length === 0 && flags.revoke !== 'all')
        this.fail(`No paired device ${flags.revoke} ("cast web devices" lists them).`, EXIT.NOT_FOUND)
      revoked = gone.map((d) => d.id)
      for (const d of gone) this.log(`revoked ${d.id}  ${oneLine(d.name)}`)
    }

    const devices = listDevices(home).map((d) => ({created_at: d.created_at, id: d.id, name: d.name}))
    if (flags.revoke === undefined) {
      if (devices.length === 0) this.log('No paired devices ("cast web pair" pairs one).')
      for (const d of devices) this.log(`${d.id}  ${oneLine(d.name)}  paired ${d.created_at}`)
    }

    return {devices, revoked}
  }
}
