/**
 * `cast web`'s HTTP server (node:http, no framework): the static page from dist/web, the JSON the
 * page renders (src/lib/web/data.ts), the live stream (src/lib/web/events.ts), and the verbs, run
 * in this process as the CLI runs them (src/lib/web/run-verb.ts). Every request passes the guard
 * (src/lib/web/guard.ts) first. Errors are the JSON error envelope of docs/contract.md with the
 * HTTP status its exit code means; nothing a client sends or drops can stop the server.
 */
import fs from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import path from 'node:path'

import type {Config} from '@oclif/core'

import {isVerbName, verb} from '../../core/model/verbs.js'
import type {Store} from '../../core/store/store.js'
import type {Env} from '../home/env.js'
import {errorEnvelope} from '../cli/errors.js'
import {cardWritable, HttpError, sameAsk, writable} from './writable.js'
import {EXIT} from '../base/exit-codes.js'
import {ListingCache, localBuilder, sessionDetail, workerBuilder} from './data.js'
import {exchangePairCode, revokeDevices} from '../home/devices.js'
import {EventHub} from './events.js'
import {type Caller, cookie, Guard, type Lifetimes, ownerOf, SECURITY_HEADERS, sendJson} from './guard.js'
import {PairLimiter} from './pair-limit.js'
import {runCatalogVerb, runInProcess, type VerbOutcome} from './run-verb.js'
import {phonePublic, type PushRouteContext, pushRoute} from './push-routes.js'
import {readShell, sendRaw, type Shell} from './shell.js'
import {followAction} from './team-action.js'
import {clientAddress, forwardedRefusal, fromLoopback, type PublicAddress} from './proxy.js'
import {type TlsFiles, type TlsPair, watchPair} from './tls.js'

export interface WebServerOptions {
  readonly store: Store
  readonly env: Env
  readonly clock: () => number
  readonly me: string
  readonly home: string
  readonly config: Config
  readonly recencyMs: number
  /** dist/web: the page's files. */
  readonly assets: string
  /** The host names (and addresses) the server answers to; each is allowed with the port it listens on. */
  readonly hostNames: readonly string[]
  /** `cast web --team`: every session of the team (as `cast sessions --team`), teammates' read-only unless I own or run them. */
  readonly team?: boolean
  /** A browser session's idle and absolute lifetimes (default 12 h and 7 days). */
  readonly lifetimes?: Lifetimes
  /** How long a live-stream client may stay backed up before it is dropped (events.ts STALL_MS). */
  readonly stallMs?: number
  /** `--tls-cert/--tls-key`: serve HTTPS with this pair, reloaded when its files change (tls.ts). */
  readonly tls?: {readonly files: TlsFiles; readonly pair: TlsPair}
  /** `--behind-proxy URL`: a TLS proxy on this machine serves the page at this public address (proxy.ts). */
  readonly proxy?: PublicAddress
  /** Where a line about the server goes (a TLS reload): stderr. */
  readonly log?: (line: string) => void
}

/** The largest request body (a reply is at most 65,536 characters, src/lib/cli/base-command.ts). */
const MAX_BODY = 300_000
/** Files anyone who reaches the server may fetch: the login and pairing pages need them. */
const PUBLIC = new Set(['/pair', '/pair.js', '/style.css', '/manifest.webmanifest', '/icon.svg'])
const TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.webmanifest': 'application/manifest+json',
}
/** HTTP status for each exit code of docs/contract.md. */
const STATUS: Record<number, number> = {1: 500, 2: 400, 3: 404, 4: 409, 5: 409, 124: 504}

export class WebServer {
  readonly guard: Guard
  readonly hub: EventHub
  readonly server: http.Server | https.Server
  private readonly pairLimit = new PairLimiter()
  /** The team actions this server queued (a page may follow only those). */
  private readonly actions = new Set<number>()
  private readonly hosts = new Set<string>()
  /** Teammates' changes (LISTEN on the team store), when a team is joined. */
  private team: import('./team-live.js').TeamFollower | null = null
  private readonly cache: ListingCache
  /** The thread that builds the listing (data.ts workerBuilder). */
  private worker: ReturnType<typeof workerBuilder> | null = null
  /** index.html and the page's modules (preloaded from it: one round trip, not one per import level). */
  private readonly shell: Shell | null
  /** This server's loopback host:port spellings (the Host a proxy sends when it rewrites it). */
  private readonly upstream = new Set<string>()
  private unwatch: (() => void) | null = null

  /** What the phone's routes (push-routes.ts) read. */
  private get phone(): PushRouteContext {
    return {...this.o, changed: () => this.hub.pump(true)}
  }

  constructor(private readonly o: WebServerOptions) {
    this.guard = new Guard(this.hosts, o.home, o.lifetimes, o.tls !== undefined || o.proxy?.protocol === 'https:')
    const local = localBuilder(o.store, o.env, o.clock, o.me, o.team === true)
    this.cache = new ListingCache(o.store, async () => {
      this.worker ??= workerBuilder(o.env, o.me, o.team === true).catch(() => null)
      const w = await this.worker
      // A thread that failed to start or stopped: build here.
      return w ? w.build().catch(() => local()) : local()
    })
    this.shell = readShell(o.assets)
    this.hub = new EventHub(o.store, o.env, o.clock, o.me, () => this.cache.fresh(), o.recencyMs)
    this.hub.alive = (owner) => this.guard.alive(owner)
    if (o.stallMs !== undefined) this.hub.stallMs = o.stallMs
    const serve = (req: http.IncomingMessage, res: http.ServerResponse): void => {
      req.on('error', () => undefined)
      res.on('error', () => undefined)
      this.handle(req, res).catch((error: unknown) => {
        const e = error instanceof HttpError ? error : new HttpError(500, (error as Error).message, EXIT.FAILURE)
        sendJson(res, e.status, errorEnvelope(e.message, e.exit))
      })
    }

    this.server = o.tls ? https.createServer({cert: o.tls.pair.cert, key: o.tls.pair.key}, serve) : http.createServer(serve)
    // A client that is not speaking TLS (plain http to the https port) is dropped; nothing is logged for it.
    this.server.on('tlsClientError', (_error: Error, socket: import('node:net').Socket) => socket.destroy())
    // A slow or silent client cannot hold a request open for ever (the event stream is exempt: it writes).
    this.server.requestTimeout = 60_000
    this.server.headersTimeout = 20_000
  }

  async listen(port: number, host: string): Promise<number> {
    await this.hub.start()
    const {followTeam} = await import('./team-live.js')
    this.team = await followTeam(this.o.store, this.o.env, () => {
      this.cache.invalidate()
      this.hub.refresh()
    }).catch(() => null)
    this.cache.volatile = this.team !== null
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(port, host, () => resolve())
    })
    const addr = this.server.address()
    const bound = typeof addr === 'object' && addr ? addr.port : port
    this.guard.bound(bound)
    const spell = (name: string): string => `${name.includes(':') ? `[${name}]` : name}:${bound}`.toLowerCase()
    // Behind a proxy the browser's address is the public one alone; this server's own are the proxy's upstream.
    for (const name of this.o.hostNames) (this.o.proxy ? this.upstream : this.hosts).add(spell(name))
    if (this.o.proxy) this.hosts.add(this.o.proxy.host)
    const tlsServer = this.server instanceof https.Server ? this.server : null
    if (this.o.tls && tlsServer)
      this.unwatch = watchPair(
        this.o.tls.files,
        this.o.tls.pair,
        (p) => tlsServer.setSecureContext({cert: p.cert, key: p.key}),
        this.o.log ?? (() => undefined),
      )
    // The first page load should not wait for the first build.
    void this.cache.rebuild().catch(() => undefined)
    return bound
  }

  async close(): Promise<void> {
    this.unwatch?.()
    await this.team?.stop()
    await this.hub.stop()
    await (await this.worker)?.stop().catch(() => undefined)
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://cast.invalid')
    if (this.o.proxy) {
      if (!fromLoopback(req)) throw new HttpError(403, 'cast web --behind-proxy answers its proxy on this machine only.', EXIT.REFUSED)
      const refused = forwardedRefusal(req, this.o.proxy, this.upstream)
      if (refused) throw new HttpError(403, refused, EXIT.REFUSED)
    } else if (!this.guard.hostAllowed(req))
      throw new HttpError(403, 'This address is not one cast web serves (Host header refused).', EXIT.REFUSED)
    // The sign-in form of `cast web --open` (a local file, so Origin null) posts the token here.
    if (url.pathname === '/login' && req.method === 'POST') return this.login(await readToken(req), res, true)
    // The service worker, the app's icons and ntfy's action URLs (push-routes.ts): no cookie, no Origin.
    if (phonePublic(url.pathname)) return void (await pushRoute(this.phone, url, req, res, null, () => this.guard.secure))
    const write = req.method !== 'GET' && req.method !== 'HEAD'
    if (write && !this.guard.originAllowed(req)) throw new HttpError(403, 'A write from another origin is refused.', EXIT.REFUSED)
    if (url.pathname === '/login' && req.method === 'GET') return this.login(url.searchParams.get('token') ?? '', res, false)
    if (url.pathname === '/api/pair' && req.method === 'POST') return this.pair(req, res)
    if (req.method === 'GET' && PUBLIC.has(url.pathname)) return this.file(res, url.pathname === '/pair' ? '/pair.html' : url.pathname)
    // The page and its files hold no data: the cookie is enough for them; every /api/ call also needs the key header.
    const api = url.pathname.startsWith('/api/')
    // The service worker's notification action has no page storage; its one-use action token is its secret (push-routes.ts).
    const caller = this.guard.caller(req, !api || url.pathname === '/api/push/act')
    if (!caller) {
      if (req.method === 'GET' && url.pathname === '/') return this.file(res, '/login.html', 401)
      throw new HttpError(401, 'Not signed in: open the address "cast web" printed, or pair this device ("cast web pair").', EXIT.REFUSED)
    }

    if (await pushRoute(this.phone, url, req, res, caller, () => this.guard.secure)) return
    if (req.method === 'GET') return this.get(url, req, res, caller)
    if (req.method === 'POST') return this.post(url, req, res, caller)
    throw new HttpError(405, `${req.method} is not served.`, EXIT.USAGE)
  }

  private async get(url: URL, req: http.IncomingMessage, res: http.ServerResponse, caller: Caller): Promise<void> {
    const p = url.pathname
    if (p === '/') return this.index(res)
    // ?head: what the page's first paint draws (the head of the open sections), before its stream's snapshot.
    if (p === '/api/listing')
      return sendRaw(res, url.searchParams.has('head') ? (await this.cache.quick()).head : (await this.cache.fresh()).json)
    if (p === '/api/events') {
      const last = Number(req.headers['last-event-id'] ?? url.searchParams.get('since') ?? NaN)
      return this.hub.add(res, Number.isInteger(last) && last >= 0 ? last : null, ownerOf(caller))
    }

    if (p === '/api/presence') return this.answer(res, await runInProcess(this.o.config, ['presence']))
    const a = /^\/api\/action\/(\d{1,15})$/.exec(p)
    if (a) {
      const id = Number(a[1])
      if (!this.actions.has(id)) throw new HttpError(404, `No action ${id} was asked from this page.`, EXIT.NOT_FOUND)
      const wait = Math.min(25_000, Math.max(0, Number(url.searchParams.get('wait') ?? 0) || 0))
      const report = await followAction(this.o.store, this.o.env, id, wait)
      if (!report) throw new HttpError(404, 'This machine is not in a team now.', EXIT.NOT_FOUND)
      if (report.status === 'delivered' || report.status === 'refused') this.hub.pump()
      return sendJson(res, 200, report)
    }

    const m = /^\/api\/session\/([\w-]{1,200})$/.exec(p)
    if (m) {
      const detail = await sessionDetail(this.o.store, this.o.env, m[1]!, this.o.me, this.o.clock())
      if (!detail) throw new HttpError(404, `No session ${m[1]} on this machine.`, EXIT.NOT_FOUND)
      return sendJson(res, 200, detail)
    }

    // The page's files under this build's version: kept by the browser (a new build is a new path).
    const v = /^\/v\/([\da-f]{12})(\/[\w-]+\.(js|css|svg))$/.exec(p)
    if (v) return this.file(res, v[2]!, 200, v[1] === this.shell?.version)
    if (/^\/[\w-]+\.(js|css|svg|html|webmanifest)$/.test(p)) return this.file(res, p)
    throw new HttpError(404, `Nothing at ${p}.`, EXIT.NOT_FOUND)
  }

  private async post(url: URL, req: http.IncomingMessage, res: http.ServerResponse, caller: Caller): Promise<void> {
    const body = await readBody(req)
    switch (url.pathname) {
      case '/api/verb':
        return this.answer(res, await this.verb(body))
      case '/api/presence': {
        const name = field(body, 'name', true)!
        const lapse = field(body, 'for', false)
        if (!/^[\w-]{1,40}$/.test(name)) throw new HttpError(400, 'A presence is a name: online, away, or one from the config.', EXIT.USAGE)
        return this.answer(res, await runInProcess(this.o.config, ['presence', name, ...(lapse ? ['--for', lapse] : [])]))
      }

      case '/api/decide': {
        const card = field(body, 'card', true)!
        const choice = body['choice']
        if (!Number.isInteger(choice)) throw new HttpError(400, '"choice" is the number of an option.', EXIT.USAGE)
        await cardWritable(this.o, card, field(body, 'session', false))
        return this.answer(res, await runInProcess(this.o.config, ['decide', 'answer', card, String(choice)], this.o))
      }

      case '/api/choose': {
        const session = field(body, 'session', true)!
        const choice = body['choice']
        if (!/^\w[\w.:-]{0,199}$/.test(session)) throw new HttpError(400, '"session" is a session id.', EXIT.USAGE)
        const option = (n: unknown): boolean => Number.isInteger(n) && (n as number) >= 1 && (n as number) <= 99
        // An ask of several questions: `answers`, one list of option numbers per question.
        const answers = body['answers']
        const many = Array.isArray(answers) && answers.length > 0 && answers.length <= 8
        if (many && !answers.every((a) => Array.isArray(a) && a.length > 0 && a.length <= 20 && a.every(option)))
          throw new HttpError(400, '"answers" lists, per question, the numbers of its options.', EXIT.USAGE)
        if (!many && !option(choice)) throw new HttpError(400, '"choice" is the number of an option.', EXIT.USAGE)
        await writable(this.o, session)
        if (many && !sameAsk(this.o.store, session, body['asked']))
          return this.answer(res, {
            ok: false,
            ...errorEnvelope('The question changed since the page drew it: nothing was sent.', EXIT.REFUSED),
          })
        const args = many ? (answers as number[][]).map((a) => a.join(',')) : [String(choice)]
        return this.answer(res, await runInProcess(this.o.config, ['choose', session, ...args], this.o))
      }

      case '/api/logout': {
        // Ends on the server: a session is forgotten, a device revoked; their open streams close now.
        if (caller.kind === 'local') this.guard.logout(caller.sid)
        else revokeDevices(this.o.home, caller.id)
        this.hub.closeOwner(ownerOf(caller))
        const name = caller.kind === 'local' ? this.guard.names.session : this.guard.names.device
        return sendJson(res, 200, {ok: true, who: caller.kind}, {'set-cookie': cookie(name, '', 0, this.guard.secure)})
      }

      default:
        throw new HttpError(404, `Nothing at ${url.pathname}.`, EXIT.NOT_FOUND)
    }
  }

  /** A verb of the catalog, as the CLI runs it; refused when the session moved since the page drew it. */
  private async verb(body: Record<string, unknown>): Promise<VerbOutcome> {
    const name = field(body, 'verb', true)!
    if (!isVerbName(name)) throw new HttpError(400, `Unknown verb "${name}".`, EXIT.USAGE)
    const v = verb(name)
    const session = v.global ? '' : field(body, 'session', true)!
    if (!v.global && !/^\w[\w.:-]{0,199}$/.test(session)) throw new HttpError(400, '"session" is a session id.', EXIT.USAGE)
    const value = field(body, 'value', v.takes === 'text' || v.takes === 'time' || v.takes === 'label')
    // A time or a label goes before the sessions on the command line: it may not read as a flag.
    if ((v.takes === 'time' || v.takes === 'label') && /^\s*-/.test(value!))
      throw new HttpError(400, `A ${v.takes} cannot start with "-".`, EXIT.USAGE)
    if (v.name === 'reply' && value!.trim() === '-')
      throw new HttpError(400, 'A reply of a lone "-" is not sent (cast send reads stdin for it).', EXIT.USAGE)
    if (v.takes === 'confirm' && body['confirmed'] !== true) throw new HttpError(400, `${v.label} needs "confirmed": true.`, EXIT.USAGE)
    const expect = field(body, 'expect', false)
    if (expect !== null && !/^[a-z_]+(:[a-z_]+)?$/.test(expect)) throw new HttpError(400, '"expect" is STATE or STATE:REASON.', EXIT.USAGE)
    // Once the body is valid, before anything runs or is queued: a teammate's session I neither own nor run is read-only here.
    const where = v.global ? null : await writable(this.o, session)
    // Ctrl+Enter: held until the turn ends (cast send --queue), whatever the state now.
    const queue = v.name === 'reply' && body['queue'] === true
    if (expect !== null && !v.global && !queue) {
      const row = this.o.store.loadSessions([session])[0]
      const now = row ? `${row.state}:${row.reason}` : null
      if (row && now !== expect && row.state !== expect)
        return {
          ok: false,
          ...errorEnvelope(`The session changed since the page drew it: it is ${now} now, not ${expect}. Nothing was done.`, EXIT.REFUSED),
        }
    }

    // Not this machine's: the runner's team branch queues it (signed) and the page follows it
    // (GET /api/action/ID) rather than hold every other verb while the other machine answers.
    const remote = where !== null && where.remote && v.remote !== undefined
    const out = await runCatalogVerb(this.o, v.name, {
      expect: expect ?? undefined,
      noWait: remote,
      queue,
      session,
      value: value ?? undefined,
    })
    const queued = out.ok ? (out.json as {action_id?: unknown}) : null
    if (remote && queued && typeof queued.action_id === 'number') this.actions.add(queued.action_id)
    return out
  }

  private answer(res: http.ServerResponse, out: VerbOutcome): void {
    if (out.ok) sendJson(res, 200, out.json)
    else sendJson(res, STATUS[out.error.exit_code] ?? 500, {error: out.error})
    // The store changed: the stream need not wait for the file watch.
    this.hub.pump(true)
  }

  /**
   * The login token (once) becomes a session: its id in a cookie, its key in the address's
   * fragment (never sent to a server), which the page moves into its own origin's storage.
   * `posted`: from a form on another origin (`cast web --open`'s local file): a SameSite=Strict
   * cookie rides only on a navigation this origin starts, so a page here goes on (a meta refresh).
   */
  private login(token: string, res: http.ServerResponse, posted: boolean): void {
    const got = this.guard.login(token)
    if (!got) return this.file(res, '/login.html', 401)
    const to = `/#key=${got.key}`
    const headers = {
      ...SECURITY_HEADERS,
      'cache-control': 'no-store',
      'set-cookie': cookie(this.guard.names.session, got.sid, undefined, this.guard.secure),
    }
    if (!posted) {
      res.writeHead(303, {...headers, location: to})
      return void res.end()
    }

    const body = Buffer.from(
      `<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${to}"><title>cast inbox</title><p>Signed in.</p>`,
    )
    res.writeHead(200, {...headers, 'content-length': body.length, 'content-type': TYPES['.html']!})
    res.end(body)
  }

  /** A device exchanges a pairing code for its credential (a year-long cookie; revocable). */
  private async pair(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const now = this.o.clock()
    const from = this.o.proxy ? clientAddress(req) : (req.socket.remoteAddress ?? '')
    const body = await readBody(req)
    const code = field(body, 'code', true)!
    if (!this.pairLimit.allowed(from, code, now))
      throw new HttpError(429, 'Too many wrong codes from this address: wait ten minutes, then try again.', EXIT.REFUSED)
    const got = exchangePairCode(this.o.home, code, field(body, 'name', false) ?? 'device', now)
    if (!got) {
      this.pairLimit.failed(from, code, now)
      throw new HttpError(401, 'That code is wrong, used or expired: run "cast web pair" for a new one.', EXIT.REFUSED)
    }

    // The key goes to the pairing page alone (it keeps it in this origin's storage and sends it as a header).
    sendJson(
      res,
      200,
      {device: {id: got.device.id, name: got.device.name}, key: got.key},
      {'set-cookie': cookie(this.guard.names.device, got.credential, 365 * 86_400, this.guard.secure)},
    )
  }

  /**
   * The page's shell, with a modulepreload link per module. It holds no data (the cookie alone
   * serves it, and the cookie reaches every server on this host): the listing needs the
   * key header (GET /api/listing?head and the stream).
   */
  private index(res: http.ServerResponse): void {
    if (!this.shell) return this.file(res, '/index.html')
    const v = `/v/${this.shell.version}/`
    const preload = this.shell.modules.map((m) => `<link rel="modulepreload" href="${v}${m}" />`).join('')
    const html = this.shell.html
      .replace('src="/main.js"', `src="${v}main.js"`)
      .replace('href="/style.css"', `href="${v}style.css"`)
      .replace('</head>', `${preload}</head>`)
    const body = Buffer.from(html)
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'cache-control': 'no-store',
      'content-length': body.length,
      'content-type': TYPES['.html']!,
    })
    res.end(body)
  }

  private file(res: http.ServerResponse, name: string, status = 200, immutable = false): void {
    const file = path.join(this.o.assets, path.basename(name))
    let data: Buffer
    try {
      data = fs.readFileSync(file)
    } catch {
      throw new HttpError(404, `Nothing at ${name}.`, EXIT.NOT_FOUND)
    }

    res.writeHead(status, {
      ...SECURITY_HEADERS,
      'cache-control': immutable ? 'private, max-age=31536000, immutable' : 'no-cache',
      'content-length': data.length,
      'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
    })
    res.end(data)
  }
}

/** The token of the sign-in form (application/x-www-form-urlencoded, a few hundred bytes at most). */
async function readToken(req: http.IncomingMessage): Promise<string> {
  let text = ''
  for await (const chunk of req as AsyncIterable<Buffer>) {
    text += chunk.toString('latin1')
    if (text.length > 4096) throw new HttpError(413, 'The sign-in form is over 4096 bytes.', EXIT.USAGE)
  }

  return new URLSearchParams(text).get('token') ?? ''
}

/** A JSON object body, at most MAX_BODY bytes, sent as application/json; else a 400. */
async function readBody(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
    throw new HttpError(400, 'The body must be JSON (content-type application/json).', EXIT.USAGE)
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > MAX_BODY) throw new HttpError(413, `The body is over ${MAX_BODY} bytes.`, EXIT.USAGE)
    chunks.push(chunk)
  }

  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch {
    throw new HttpError(400, 'The body is not valid JSON.', EXIT.USAGE)
  }

  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new HttpError(400, 'The body must be a JSON object.', EXIT.USAGE)
  return parsed as Record<string, unknown>
}

function field(body: Record<string, unknown>, name: string, required: boolean): string | null {
  const v = body[name]
  if (v === undefined || v === null) {
    if (required) throw new HttpError(400, `"${name}" is missing.`, EXIT.USAGE)
    return null
  }

  if (typeof v !== 'string' || v.length > 70_000) throw new HttpError(400, `"${name}" must be a string.`, EXIT.USAGE)
  return v
}
