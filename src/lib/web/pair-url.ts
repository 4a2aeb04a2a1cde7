/**
 * The address a device opens to pair (`cast web pair`): http(s)://ADDR:PORT/pair#CODE. The code
 * rides in the fragment, which a browser never sends to the server (no request line or log holds
 * it); the pairing page (src/web/pair.ts) fills it in and takes it out of the address bar.
 */
import os from 'node:os'

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/i
const WILDCARD = /^(0\.0\.0\.0|::|\[::\])$/

/** This machine's first IPv4 address another device can reach (not loopback), if any. */
export function lanAddress(interfaces = os.networkInterfaces()): string | undefined {
  for (const addrs of Object.values(interfaces))
    for (const a of addrs ?? []) if (a.family === 'IPv4' && !a.internal && !LOOPBACK.test(a.address)) return a.address
  return undefined
}

/**
 * The pairing address for `listen` (what `cast web --listen` is given; a wildcard or nothing
 * means this machine's LAN address), or undefined when no other device could open it.
 */
export function pairUrl(listen: string | undefined, port: number, code: string, lan = lanAddress(), https = false): string | undefined {
  const host = listen === undefined || WILDCARD.test(listen) ? lan : listen
  if (host === undefined || LOOPBACK.test(host)) return undefined
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
  // Over HTTPS (cast web --tls-cert, or a TLS proxy) on 443, the port is left out as a browser does.
  return `${https ? 'https' : 'http'}://${shown}${https && port === 443 ? '' : `:${port}`}/pair#${code}`
}
