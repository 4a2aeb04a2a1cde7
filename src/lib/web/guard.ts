/**
 * The checks every request to `cast web` passes before anything else (docs/web.md, "Security
 * model"): the Host header names the address the server is bound to (a DNS-rebinding page
 * cannot), a write carries the page's own Origin, and the caller holds either the session cookie
 * the one-time login token became or a paired device's credential. The headers every answer
 * carries: a strict Content-Security-Policy (scripts and styles from the page's own origin only,
 * no inline code, no frames), no sniffing, no referrer.
 */
import crypto from 'node:crypto'
import type {IncomingMessage, ServerResponse} from 'node:http'

import {deviceFor} from './devices.js'

export const SESSION_COOKIE = 'cast_session'
export const DEVICE_COOKIE = 'cast_device'

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; manifest-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
}

export type Caller = {readonly kind: 'local'} | {readonly kind: 'device'; readonly id: string; readonly name: string}

export class Guard {
  private loginToken: string | null
  private readonly sessions = new Set<string>()

  constructor(
    /** host:port spellings the server answers to. */
    private readonly hosts: ReadonlySet<string>,
    private readonly home: string,
  ) {
    this.loginToken = crypto.randomBytes(24).toString('base64url')
  }

  /** The one-time login token (null once used). */
  get token(): string | null {
    return this.loginToken
  }

  hostAllowed(req: IncomingMessage): boolean {
    const host = (req.headers.host ?? '').toLowerCase()
    return this.hosts.has(host)
  }

  /** A write's Origin is this page's own (http://<an allowed host>). */
  originAllowed(req: IncomingMessage): boolean {
    const origin = req.headers.origin
    if (typeof origin !== 'string') return false
    try {
      const u = new URL(origin)
      return u.protocol === 'http:' && this.hosts.has(u.host.toLowerCase()) && origin === u.origin
    } catch {
      return false
    }
  }

  /** Exchange the login token (once) for a session id the cookie carries; null when wrong or used. */
  login(token: string): string | null {
    if (this.loginToken === null || !equal(token, this.loginToken)) return null
    this.loginToken = null
    const sid = crypto.randomBytes(32).toString('base64url')
    this.sessions.add(sid)
    return sid
  }

  caller(req: IncomingMessage): Caller | null {
    const cookies = parseCookies(req.headers.cookie)
    const sid = cookies.get(SESSION_COOKIE)
    if (sid !== undefined && this.sessions.has(sid)) return {kind: 'local'}
    const cred = cookies.get(DEVICE_COOKIE)
    if (cred === undefined) return null
    const device = deviceFor(this.home, cred)
    return device ? {id: device.id, kind: 'device', name: device.name} : null
  }
}

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && crypto.timingSafeEqual(x, y)
}

export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>()
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0) out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim())
  }

  return out
}

/** A cookie only this origin's own requests carry, never script (HttpOnly, SameSite=Strict). */
export function cookie(name: string, value: string, maxAgeS?: number): string {
  return `${name}=${value}; HttpOnly; SameSite=Strict; Path=/${maxAgeS === undefined ? '' : `; Max-Age=${maxAgeS}`}`
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return
  const text = JSON.stringify(body)
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
    'content-type': 'application/json; charset=utf-8',
    ...headers,
  })
  res.end(text)
}
