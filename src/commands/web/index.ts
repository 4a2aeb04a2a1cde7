import {Flags} from '@oclif/core'

import {BaseCommand} from '../../lib/cli/base-command.js'
import {durationFlag} from '../../lib/cli/time-flags.js'
import {SESSION_IDLE_MS, SESSION_MAX_MS} from '../../lib/web/guard.js'
import {WEB_PORT} from '../../lib/web/start.js'

export default class Web extends BaseCommand {
  static override description = `Serves the inbox to a browser: the same sections, counts and verbs as cast sessions
and cast inbox, live (each change of the transitions log reaches the page as it happens),
and a composer that types into the agent's terminal through cast send's checks.

It listens on 127.0.0.1 and prints an address with a one-time login token; opening it
signs that browser in (an HttpOnly, SameSite=Strict cookie, named with the port, and a
key the page keeps in its own storage and sends as a header: the cookie alone, which the
browser also sends to other servers on this host, lets nothing in) and uses the token up.
Every request is checked for them, for a Host header naming this server (no DNS
rebinding) and, on writes, for the page's own Origin. Logout ends the session on the
server and closes its live stream; a session also ends after 12 hours without a request
(--idle) or 7 days after sign-in (--lifetime).

Other devices (a phone on the LAN or a tailnet) need --listen ADDR and pairing: run
"cast web pair" first, open http://ADDR:PORT/pair on the device and type the code; the
device gets its own credential, revocable with "cast web devices --revoke ID".
docs/web.md describes the security model.

HTTPS: --tls-cert FILE --tls-key FILE (PEM, as "tailscale cert" or mkcert write them) serves
the page over HTTPS, with Secure __Host- cookies; a renewal of the files is picked up without a
restart (a new pair that does not load keeps the old one, in one line on stderr). Behind a
reverse proxy that terminates TLS on this machine (Caddy, "tailscale serve"), --behind-proxy
URL names the public address: then only loopback connections are let in and the forwarded
scheme and host must be URL's. docs/web.md shows the three setups.

With a team joined, the page lists teammates' sessions you own, as cast sessions does;
--team lists every session of the team, as cast sessions --team does, marked with their
machine and who runs them. A teammate's session you neither own nor run is read-only:
the page offers no verb on it and the server refuses any write to it (403).`
  static override examples = [
    {command: '<%= config.bin %> <%= command.id %>', description: `Serve the inbox on 127.0.0.1:${WEB_PORT}, until stopped.`},
    {command: '<%= config.bin %> <%= command.id %> --port 0', description: 'On a free port, until stopped.'},
    {
      command: '<%= config.bin %> <%= command.id %> --team',
      description: "Every machine's sessions; teammates' read-only unless you own them; until stopped.",
    },
    {
      command: '<%= config.bin %> web pair && <%= config.bin %> <%= command.id %> --listen 0.0.0.0 --port 0',
      description: 'Pair a phone, then serve it on the LAN, until stopped.',
    },
  ]
  static override flags = {
    'behind-proxy': Flags.string({
      exclusive: ['tls-cert', 'tls-key'],
      helpValue: 'URL',
      summary: 'A TLS proxy on this machine serves the page at URL (https://box.tail1234.ts.net): loopback only, forwarded host checked.',
    }),
    host: Flags.string({
      helpValue: 'NAME',
      multiple: true,
      summary: 'Another name the page is reached by (a tailnet name): its Host header is then accepted.',
    }),
    idle: durationFlag({
      helpValue: 'D',
      min: 1000,
      minText: '1s',
      summary: 'End a browser session after D without a request (default 12h).',
    }),
    lifetime: durationFlag({
      helpValue: 'D',
      min: 1000,
      minText: '1s',
      summary: 'End a browser session D after sign-in, however it is used (default 7d).',
    }),
    listen: Flags.string({helpValue: 'ADDR', summary: 'Listen on this address instead of 127.0.0.1 (other devices: pair them first).'}),
    open: Flags.boolean({
      summary: 'Sign in the default browser (through a 0600 file in CAST_HOME/web; the token is on no command line).',
    }),
    port: Flags.integer({
      default: WEB_PORT,
      helpValue: 'N',
      max: 65_535,
      min: 0,
      summary: `The port (default ${WEB_PORT}; 0 picks a free one).`,
    }),
    'tls-cert': Flags.string({
      dependsOn: ['tls-key'],
      helpValue: 'FILE',
      summary: 'Serve HTTPS with this PEM certificate (reloaded when it changes).',
    }),
    'tls-key': Flags.string({dependsOn: ['tls-cert'], helpValue: 'FILE', summary: 'The PEM private key of --tls-cert.'}),
    team: Flags.boolean({summary: "Every session of the team (cast sessions --team); teammates' read-only unless you own or run them."}),
  }
  static override summary = 'Serve the inbox to a browser (127.0.0.1; other devices after pairing).'

  async run(): Promise<void> {
    const {flags} = await this.parse(Web)
    // Listen before starting: a Ctrl-C while the server and its watcher start stops it cleanly
    // (exit 0), as cast daemon does, instead of the default action (exit 130).
    const stopped = new Promise<void>((resolve) => {
      process.once('SIGINT', resolve)
      process.once('SIGTERM', resolve)
    })
    const {startWeb} = await import('../../lib/web/start.js')
    const store = await this.openStore()
    const web = await startWeb({
      behindProxy: flags['behind-proxy'],
      clock: this.clock(),
      config: this.config,
      env: this.env,
      hosts: flags.host,
      lifetimes: {idleMs: flags.idle ?? SESSION_IDLE_MS, maxMs: flags.lifetime ?? SESSION_MAX_MS},
      listen: flags.listen,
      log: (line) => this.logToStderr(line),
      me: this.me,
      port: flags.port,
      store,
      team: flags.team,
      tls: flags['tls-cert'] && flags['tls-key'] ? {cert: flags['tls-cert'], key: flags['tls-key']} : undefined,
    })
    if (flags['behind-proxy']) this.log(`The proxy forwards ${web.origin} to http://127.0.0.1:${web.port} (loopback only).`)
    this.log(`cast web${flags.team ? ' --team' : ''} · ${this.me} · ${web.url}`)
    this.log('Open the address once: signing in uses the token up. Ctrl-C stops.')
    if (!web.loopback) this.log(`Paired devices open ${web.origin}/ (new ones pair at /pair with a "cast web pair" code).`)
    if (flags.open) {
      // The browser opens a 0600 sign-in file that posts the token: no command line holds it.
      const {openSignIn} = await import('../../lib/web/open.js')
      const {castHome} = await import('../../lib/home/env.js')
      const token = web.server.guard.token
      if (token !== null) await openSignIn(castHome(this.env), web.origin, token, () => web.server.guard.token === null)
    }

    await stopped
    await web.server.close()
  }
}
