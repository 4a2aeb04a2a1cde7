import {Flags} from '@oclif/core'

import {BaseCommand} from '../../lib/cli/base-command.js'
import {WEB_PORT} from '../../lib/web/start.js'

export interface PairJson {
  code: string
  expires_at: string
}

export default class WebPair extends BaseCommand {
  static override description = `Prints a short-lived code (valid 10 minutes, used once) that another device exchanges
for its own credential, and the address the device opens: http://ADDR:PORT/pair#CODE
(cast web --listen ADDR serves it), as text and, on a terminal, as a QR code a phone's
camera opens (the code is in the address's fragment, which the browser never sends).
ADDR is --listen, or this machine's LAN address when --listen is absent or 0.0.0.0.
The credential is stored hashed in CAST_HOME/web/devices.json (0600) and revoked with
"cast web devices --revoke ID".`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {
      command: '<%= config.bin %> <%= command.id %> --listen my-laptop.tailnet.ts.net --port 4280',
      description: 'The address a phone on the tailnet opens (serve it with cast web --listen ... --host ...).',
    },
    {
      command: '<%= config.bin %> <%= command.id %> --listen my-laptop.tailnet.ts.net --port 443 --https',
      description: 'Behind tailscale serve or Caddy (cast web --behind-proxy https://my-laptop.tailnet.ts.net).',
    },
  ]
  static override flags = {
    https: Flags.boolean({
      summary: 'cast web serves HTTPS (--tls-cert, or --behind-proxy with its public port, 443 left out): an https:// address.',
    }),
    listen: Flags.string({
      helpValue: 'ADDR',
      summary: "The address or name the device reaches cast web by (default: this machine's LAN address).",
    }),
    port: Flags.integer({default: WEB_PORT, helpValue: 'N', max: 65_535, min: 1, summary: 'The port cast web serves.'}),
    qr: Flags.boolean({
      allowNo: true,
      summary: 'Draw the address as a QR code (default: when the output is a terminal; never with --json).',
    }),
  }
  static override summary = 'A one-time code to pair a phone or another device with cast web.'

  async run(): Promise<PairJson> {
    const {flags} = await this.parse(WebPair)
    const {castHome} = await import('../../lib/home/env.js')
    const {newPairCode} = await import('../../lib/home/devices.js')
    const {pairUrl} = await import('../../lib/web/pair-url.js')
    const {oneLine} = await import('../../core/model/sanitize.js')
    const {code, expiresAt} = newPairCode(castHome(this.env), Date.now())
    const until = new Date(expiresAt).toLocaleTimeString('en-GB', {hour: '2-digit', minute: '2-digit'})
    const url = pairUrl(flags.listen, flags.port, code, undefined, flags.https)
    const qr = !this.jsonEnabled() && (flags.qr ?? process.stdout.isTTY === true)
    if (qr && url) {
      const {encodeQr} = await import('../../lib/web/qr.js')
      const {qrLines} = await import('../../lib/web/qr-terminal.js')
      // Drawn by cast (no agent text in it): its colour escapes are printed, not shown.
      this.logStyled(qrLines(encodeQr(url).modules).join('\n'))
    }
    this.log(`Pairing code: ${code}   (valid until ${until}, once)`)
    if (url) this.log(`On the device, ${qr ? 'scan the QR code or ' : ''}open ${url} (cast web --listen ADDR serves it).`)
    else if (flags.listen !== undefined && /^(127\.\d+\.\d+\.\d+|::1|\[::1\]|localhost)$/i.test(flags.listen))
      this.log(
        `${oneLine(flags.listen)} is this machine's loopback address, which no other device can reach: give --listen this machine's LAN or tailnet address.`,
      )
    else this.log('This machine has no address another device can reach: give it with --listen ADDR (a LAN or tailnet address).')
    return {code, expires_at: new Date(expiresAt).toISOString()}
  }
}
