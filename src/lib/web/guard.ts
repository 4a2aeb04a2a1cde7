/**
 * The checks every request to `cast web` passes before anything else (docs/web.md, "Security
 * model"): the Host header names the address the server is bound to (a DNS-rebinding page
 * cannot), a write carries the page's own Origin, and the caller holds either the session the
 * one-time login token became or a paired device's credential: each a cookie and a key the page
 * keeps in its own origin's storage and sends as a header. The headers every answer
 * carries: a strict Content-Security-Policy (scripts and styles from the page's own origin only,
 * no inline code, no frames), no sniffing, no referrer.
 */
import crypto from 'node:crypto'
import type {IncomingMessage, ServerResponse} from 'node:http'

import {deviceFor, listDevices} from '../home/devices.js'

/** The header every API call carries: the session's or device's key, which no cookie holds. */
export const KEY_HEADER = 'x-cast-key'
/** A browser session (the login token's) ends after this long without a request... */
export const SESSION_IDLE_MS = 12 * 3_600_000
/** ...and this long after sign-in, whatever its use. */
export const SESSION_MAX_MS = 7 * 86_400_000

/**
 * The cookie names for a server on `port`: the port is in the name (cookies are scoped by host,
 * not port, so another port's server on the same host gets them: the key header, not the cookie,
 * is what lets a request in). Over HTTPS, `__Host-` (Secure, no Domain, Path=/).
 */
export function cookieNames(port: number, secure: boolean): {session: string; device: string} {
  const pre = secure ? '__Host-' : ''
  return {device: `${pre}cast_device_${port}`, session: `${pre}cast_session_${port}`}
}

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; manifest-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
}

export type Caller = {readonly kind: 'local'; readonly sid: string} | {readonly kind: 'device'; readonly id: string; readonly name: string}

/** The owner a stream is closed for: a session or a device. */
export const ownerOf = (c: Caller): string => (c.kind === 'local' ? `session:${c.sid}` : `device:${c.id}`)

interface Session {
  readonly key: string
  readonly created: number
  seen: number
}

/** How long a browser session lasts on the server (`cast web --idle D --lifetime D`). */
export interface Lifetimes {
  /** Ended after this long without a request. */
  readonly idleMs: number
  /** Ended this long after sign-in, whatever its use. */
  readonly maxMs: number
}

export class Guard {
  private loginToken: string | null
  private readonly sessions = new Map<string, Session>()
  names = cookieNames(0, false)
  /** Lifetimes run on the wall clock (never CAST_NOW, which a demo store may fix). */
  private readonly clock = Date.now

  constructor(
    /** host:port spellings the server answers to. */
    private readonly hosts: ReadonlySet<string>,
    private readonly home: string,
    readonly lifetimes: Lifetimes = {idleMs: SESSION_IDLE_MS, maxMs: SESSION_MAX_MS},
    /** The page is served over HTTPS (Secure `__Host-` cookies, https: origins). */
    readonly secure = false,
  ) {
    this.loginToken = crypto.randomBytes(24).toString('base64url')
  }

  /** Once the port is known: the cookie names carry it. */
  bound(port: number): void {
    this.names = cookieNames(port, this.secure)
  }

  /** The one-time login token (null once used). */
  get token(): string | null {
    return this.loginToken
  }

  hostAllowed(req: IncomingMessage): boolean {
    const host = (req.headers.host ?? '').toLowerCase()
    return this.hosts.has(host)
  }

  /** A write's Origin is this page's own (http(s)://<an allowed host>). */
  originAllowed(req: IncomingMessage): boolean {
    const origin = req.headers.origin
    if (typeof origin !== 'string') return false
    try {
      const u = new URL(origin)
      return u.protocol === (this.secure ? 'https:' : 'http:') && this.hosts.has(u.host.toLowerCase()) && origin === u.origin
    } catch {
      return false
    }
  }

  /** Exchange the login token (once) for a session: its id (the cookie) and its key (the page's header); null when wrong or used. */
  login(token: string): {sid: string; key: string} | null {
    if (this.loginToken === null || !equal(token, this.loginToken)) return null
    this.loginToken = null
    const sid = crypto.randomBytes(32).toString('base64url')
    const key = crypto.randomBytes(32).toString('base64url')
    const now = this.clock()
    this.sessions.set(sid, {created: now, key, seen: now})
    return {key, sid}
  }

  /** End a session on the server: its cookie and key stop working now. */
  logout(sid: string): void {
    this.sessions.delete(sid)
  }

  /** Is this session (or device) still let in? (Open streams are checked with it.) */
  alive(owner: string): boolean {
    if (owner.startsWith('session:')) return this.session(owner.slice(8), false) !== null
    const id = owner.slice(7)
    return listDevices(this.home).some((d) => d.id === id)
  }

  private session(sid: string, touch: boolean): Session | null {
    const s = this.sessions.get(sid)
    if (!s) return null
    const now = this.clock()
    if (now - s.seen > this.lifetimes.idleMs || now - s.created > this.lifetimes.maxMs) {
      this.sessions.delete(sid)
      return null
    }

    if (touch) s.seen = now
    return s
  }

  /**
   * Who is calling: the cookie and the key header together (the cookie alone, which the browser
   * also sends to every other server on this host, is never enough). `page`: a navigation or a
   * file the page loads (no header can ride on them): the cookie suffices, and nothing served
   * that way holds data.
   */
  caller(req: IncomingMessage, page = false): Caller | null {
    const cookies = parseCookies(req.headers.cookie)
    const key = req.headers[KEY_HEADER]
    const given = typeof key === 'string' ? key : ''
    const sid = cookies.get(this.names.session)
    if (sid !== undefined) {
      const s = this.session(sid, !page)
      if (s && (page || equal(given, s.key))) return {kind: 'local', sid}
    }

    const cred = cookies.get(this.names.device)
    if (cred === undefined) return null
    const device = deviceFor(this.home, cred, page ? null : given)
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
export function cookie(name: string, value: string, maxAgeS?: number, secure = false): string {
  return `${name}=${value}; HttpOnly; SameSite=Strict; Path=/${secure ? '; Secure' : ''}${maxAgeS === undefined ? '' : `; Max-Age=${maxAgeS}`}`
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
