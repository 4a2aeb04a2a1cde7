/**
 * `cast web --behind-proxy URL`: a reverse proxy on this machine (Caddy, `tailscale serve`)
 * terminates TLS for the public address URL and connects to cast web over loopback. Then only
 * loopback connections are let in, and the scheme and host the proxy forwards (X-Forwarded-Proto,
 * X-Forwarded-Host, Forwarded) must be the public address's: a request that claims another is
 * refused. Without --behind-proxy these headers are never read (a client cannot claim https).
 */
import type {IncomingMessage} from 'node:http'

import {CastError} from '../base/cast-error.js'
import {EXIT} from '../base/exit-codes.js'

export interface PublicAddress {
  /** https: (or http: for a proxy that serves plain HTTP, which gives no Secure cookies). */
  readonly protocol: 'http:' | 'https:'
  /** host[:port] as a browser sends it in Host (the default port left out), lowercase. */
  readonly host: string
  /** The origin: scheme://host[:port]. */
  readonly origin: string
}

/** The public address of --behind-proxy: an http(s) origin, nothing after it. */
export function publicAddress(url: string): PublicAddress {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    throw new CastError(`--behind-proxy ${JSON.stringify(url)} is not an address (like https://box.tail1234.ts.net).`, EXIT.USAGE)
  }

  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.username || u.password || u.search || u.hash || u.pathname !== '/')
    throw new CastError(
      `--behind-proxy takes the page's public origin, like https://box.tail1234.ts.net (no path), not ${JSON.stringify(url)}.`,
      EXIT.USAGE,
    )
  return {host: u.host.toLowerCase(), origin: u.origin, protocol: u.protocol}
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/

/** The connection comes from this machine. */
export function fromLoopback(req: IncomingMessage): boolean {
  return LOOPBACK.test(req.socket.remoteAddress ?? '')
}

/**
 * Why a request through the proxy is refused, or null: a forwarded scheme or host that is not
 * the public address's, or no sign that the public host was asked for. `upstream`: the host:port
 * spellings of this server's own loopback address (the Host a proxy that rewrites it sends).
 */
export function forwardedRefusal(req: IncomingMessage, pub: PublicAddress, upstream: ReadonlySet<string>): string | null {
  const protos = [...values(req.headers['x-forwarded-proto']), ...forwarded(req, 'proto')].map((p) => p.toLowerCase())
  const hosts = [...values(req.headers['x-forwarded-host']), ...forwarded(req, 'host')].map((h) => h.toLowerCase())
  const scheme = pub.protocol.slice(0, -1)
  if (protos.some((p) => p !== scheme)) return `The proxy forwarded a scheme other than ${scheme}.`
  if (hosts.some((h) => h !== pub.host)) return `The proxy forwarded a host other than ${pub.host}.`
  const host = (req.headers.host ?? '').toLowerCase()
  // The Host is the public one (a proxy that keeps it), or this server's own with the public one forwarded.
  if (host === pub.host || (upstream.has(host) && hosts.length > 0)) return null
  return `This address is not one cast web serves (it serves ${pub.origin} through its proxy).`
}

function values(header: string | string[] | undefined): string[] {
  const all = Array.isArray(header) ? header : header === undefined ? [] : [header]
  return all.flatMap((h) => h.split(',')).map((v) => v.trim())
}

/** The values of one parameter (proto, host) in the Forwarded header (RFC 7239), unquoted. */
function forwarded(req: IncomingMessage, name: string): string[] {
  const out: string[] = []
  for (const element of values(req.headers.forwarded))
    for (const pair of element.split(';')) {
      const eq = pair.indexOf('=')
      if (eq > 0 && pair.slice(0, eq).trim().toLowerCase() === name)
        out.push(
          pair
            .slice(eq + 1)
            .trim()
            .replace(/^"(.*)"$/, '$1'),
        )
    }

  return out
}

/**
 * The address of the client the proxy served (the last X-Forwarded-For entry, which the proxy
 * on this machine appended), else the connection's: pairing limits count per client, not per proxy.
 */
export function clientAddress(req: IncomingMessage): string {
  const last = values(req.headers['x-forwarded-for']).at(-1)
  return last && /^[\d.:a-f]{2,45}$/i.test(last) ? last : (req.socket.remoteAddress ?? '')
}
