import {BaseCommand} from '../../lib/cli/base-command.js'

export interface PairJson {
  code: string
  expires_at: string
}

export default class WebPair extends BaseCommand {
  static override description = `Prints a short-lived code (valid 10 minutes, used once) that another device exchanges
for its own credential: open http://ADDR:PORT/pair on the device (cast web --listen ADDR
serves it) and type the code. The credential is stored hashed in CAST_HOME/web/devices.json
(0600) and revoked with "cast web devices --revoke ID".

No QR code is drawn: a QR encoder is several hundred lines or a dependency; the code is
eight characters, easy to type.`
  static override examples = ['<%= config.bin %> <%= command.id %>']
  static override summary = 'A one-time code to pair a phone or another device with cast web.'

  async run(): Promise<PairJson> {
    await this.parse(WebPair)
    const {castHome} = await import('../../lib/home/env.js')
    const {newPairCode} = await import('../../lib/web/devices.js')
    const {code, expiresAt} = newPairCode(castHome(this.env), Date.now())
    const until = new Date(expiresAt).toLocaleTimeString('en-GB', {hour: '2-digit', minute: '2-digit'})
    this.log(`Pairing code: ${code}   (valid until ${until}, once)`)
    this.log('On the device, open http://ADDR:PORT/pair (cast web --listen ADDR) and type it.')
    return {code, expires_at: new Date(expiresAt).toISOString()}
  }
}
