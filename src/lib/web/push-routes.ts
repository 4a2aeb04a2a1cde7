/**
 * The phone's routes of `cast web` (docs/web.md, "The phone"), dispatched from server.ts:
 *
 *   GET  /api/push/key          the VAPID public key, and whether this device is subscribed
 *   POST /api/push/subscribe    store this paired device's push subscription
 *   POST /api/push/unsubscribe  forget it
 *   POST /api/push/act          a notification's action, posted by the service worker with the
 *                               device's credential: {token}
 *   POST /api/push/active       a keystroke in the page (the phone is held while you type)
 *   POST /a/TOKEN               an ntfy `http` action: the one-use token alone; HTTPS only
 *
 * An action is bound to the exact ask it was made for (src/lib/push/payload.ts askId), used once
 * and expires; it runs through the verbs in this process (run-verb.ts) with the CLI's evidence
 * rules (approve and choose check the agent's screen). Its answer is the receipt the service
 * worker shows in place of the page ("Approved on host · the agent resumed", "Not sent: …").
 */
import fs from 'node:fs'
import type http from 'node:http'
import path from 'node:path'
import type {TLSSocket} from 'node:tls'

import type {Config} from '@oclif/core'

import {notificationText, oneLine} from '../../core/model/sanitize.js'
import type {Store} from '../../core/store/store.js'
import {deviceName, type Env} from '../home/env.js'
import {EXIT} from '../base/exit-codes.js'
import {type ActionGrant, dropSubscriptions, listSubscriptions, saveSubscription, spendAction, vapidKeys} from '../push/files.js'
import {askId} from '../push/payload.js'
import {endpointAllowed} from '../push/send.js'
import {recordKeystroke} from '../notify/activity.js'
import type {Caller} from './guard.js'
import {SECURITY_HEADERS, sendJson} from './guard.js'
import {runCatalogVerb, runWebVerb, type VerbOutcome} from './run-verb.js'
import {HttpError, writable} from './writable.js'

export interface PushRouteContext {
  readonly store: Store
  readonly env: Env
  readonly clock: () => number
  readonly me: string
  readonly home: string
  readonly config: Config
  /** dist/web: the service worker's script. */
  readonly assets: string
  /** The store changed (the stream need not wait for the file watch). */
  readonly changed: () => void
}

export interface Receipt {
  readonly ok: boolean
  readonly title: string
  readonly body: string
}

/** Does this request reach cast web over HTTPS (TLS on this socket)? */
export function overHttps(req: http.IncomingMessage): boolean {
  return (req.socket as Partial<TLSSocket>).encrypted === true
}

const ICONS = new Set(['/icon-192.png', '/icon-512.png', '/icon-maskable-512.png'])

/** Paths anyone who reaches the server may fetch or post (the service worker, the icons, an ntfy action URL). */
export function phonePublic(pathname: string): boolean {
  return pathname === '/sw.js' || ICONS.has(pathname) || pathname.startsWith('/a/')
}

/** Handle a phone route; false when the path is not one. */
export async function pushRoute(
  ctx: PushRouteContext,
  url: URL,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  caller: Caller | null,
  secure: (req: http.IncomingMessage) => boolean = overHttps,
): Promise<boolean> {
  const p = url.pathname
  if ((p === '/sw.js' || ICONS.has(p)) && req.method === 'GET') {
    asset(ctx, res, p)
    return true
  }

  const ntfy = /^\/a\/([\w-]{20,60})$/.exec(p)
  if (ntfy) {
    if (req.method !== 'POST')
      throw new HttpError(405, 'An action URL is spent by a POST (the ntfy app sends one); nothing was done.', EXIT.USAGE)
    if (!secure(req))
      throw new HttpError(
        403,
        'Refused: action URLs work only over HTTPS (cast web --tls-cert/--tls-key, or behind a TLS proxy).',
        EXIT.REFUSED,
      )
    const receipt = await act(ctx, ntfy[1]!, 'ntfy')
    await ntfyReceipt(ctx, receipt)
    sendJson(res, receipt.ok ? 200 : 409, receipt)
    return true
  }

  if (!p.startsWith('/api/push/')) return false
  if (!caller) throw new HttpError(401, 'Not signed in: pair this device ("cast web pair").', EXIT.REFUSED)
  const device = caller.kind === 'device' ? caller.id : null
  if (p === '/api/push/key' && req.method === 'GET') {
    const subscribed = device !== null && listSubscriptions(ctx.home).some((s) => s.device === device)
    sendJson(res, 200, {device, public_key: vapidKeys(ctx.home).publicKey, subscribed})
    return true
  }

  if (req.method !== 'POST') throw new HttpError(405, `${req.method} is not served.`, EXIT.USAGE)
  const body = await smallBody(req)
  switch (p) {
    case '/api/push/active':
      recordKeystroke(ctx.home, 'web', ctx.clock())
      sendJson(res, 200, {ok: true})
      return true
    case '/api/push/subscribe': {
      if (device === null)
        throw new HttpError(
          409,
          'Pair this device first ("cast web pair"): pages go to paired devices, and revoking one stops them.',
          EXIT.REFUSED,
        )
      const endpoint = typeof body['endpoint'] === 'string' ? body['endpoint'] : ''
      const keys = body['keys'] as {p256dh?: unknown; auth?: unknown} | undefined
      const p256dh = typeof keys?.p256dh === 'string' ? keys.p256dh : ''
      const auth = typeof keys?.auth === 'string' ? keys.auth : ''
      if (endpoint.length > 2000 || !endpointAllowed(endpoint, ctx.env))
        throw new HttpError(400, 'A push endpoint is an https:// address of the browser’s push service.', EXIT.USAGE)
      if (Buffer.from(p256dh, 'base64url').length !== 65 || Buffer.from(auth, 'base64url').length < 16)
        throw new HttpError(400, 'The subscription’s keys are not a P-256 key and an auth secret.', EXIT.USAGE)
      saveSubscription(ctx.home, {created_at: new Date(ctx.clock()).toISOString(), device, endpoint, keys: {auth, p256dh}})
      sendJson(res, 200, {device, subscribed: true})
      return true
    }

    case '/api/push/unsubscribe':
      sendJson(res, 200, {dropped: device === null ? 0 : dropSubscriptions(ctx.home, device), subscribed: false})
      return true
    case '/api/push/act': {
      if (device === null) throw new HttpError(409, 'Not sent: a notification’s action comes from a paired device.', EXIT.REFUSED)
      const token = typeof body['token'] === 'string' ? body['token'] : ''
      const receipt = await act(ctx, token, 'push')
      sendJson(res, 200, receipt)
      return true
    }

    default:
      throw new HttpError(404, `Nothing at ${p}.`, EXIT.NOT_FOUND)
  }
}

const VERB_DONE: Record<ActionGrant['verb'], string> = {approve: 'Approved', choose: 'Chose', deny: 'Denied'}

/** Spend a token and run its verb; the receipt says what happened, in one line each. */
export async function act(ctx: PushRouteContext, token: string, via: 'push' | 'ntfy'): Promise<Receipt> {
  const no = (why: string): Receipt => ({body: '', ok: false, title: `Not sent: ${why}`})
  const g = spendAction(ctx.home, token, via, ctx.clock())
  if (g === 'unknown') return no('this action was used already or is unknown')
  if (g === 'expired') return no('this action expired (open the inbox to answer)')
  const row = ctx.store.loadSessions([g.session])[0]
  if (!row) return no('the session is gone from this machine')
  const title = notificationText(row.renamed ?? row.facts.title ?? '(untitled)')
  if (askId(row) !== g.ask)
    return {...no(g.verb === 'choose' ? 'the question had changed or closed' : 'the prompt had closed'), body: title}
  try {
    await writable(ctx, g.session)
  } catch (error) {
    return {...no(oneLine((error as Error).message)), body: title}
  }

  let out: VerbOutcome
  if (g.verb === 'choose') {
    const i = (row.facts.question?.choices ?? []).findIndex((c) => c.label === g.option)
    if (i < 0) return {...no('that option is no longer offered'), body: title}
    out = await runWebVerb(ctx, 'choose', {answers: [[i + 1]], session: g.session})
  } else out = await runCatalogVerb(ctx, g.verb, {session: g.session})
  ctx.changed()
  if (!out.ok) return {...no(oneLine(out.error.message.split('\n')[0] ?? '')), body: title}
  const what = g.verb === 'choose' ? `${VERB_DONE.choose} "${notificationText(g.option ?? '')}"` : VERB_DONE[g.verb]
  const after = g.verb === 'deny' ? '' : ' · the agent resumed'
  return {body: title, ok: true, title: `${what} on ${oneLine(deviceName(ctx.env))}${after}`}
}

/** ntfy: the receipt as a second message on the topic. */
async function ntfyReceipt(ctx: PushRouteContext, r: Receipt): Promise<void> {
  try {
    const {loadConfig} = await import('../home/config.js')
    const c = (await loadConfig(ctx.env)).notify?.ntfy
    if (!c) return
    const {publishNtfy} = await import('../notify/ntfy.js')
    await publishNtfy(
      {
        actions: [],
        message: r.body || r.title,
        priority: 3,
        tags: ['cast', r.ok ? 'white_check_mark' : 'warning'],
        title: r.title,
        topic: c.topic,
      },
      c,
    )
  } catch {
    // the action's own answer still says it
  }
}

/** The service worker (at the root, so its scope is the whole page; never cached stale) or an icon. */
function asset(ctx: PushRouteContext, res: http.ServerResponse, p: string): void {
  let data: Buffer
  try {
    data = fs.readFileSync(path.join(ctx.assets, path.basename(p)))
  } catch {
    throw new HttpError(404, `Nothing at ${p} (run "npm run build").`, EXIT.NOT_FOUND)
  }

  const js = p.endsWith('.js')
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'cache-control': js ? 'no-cache' : 'public, max-age=86400',
    'content-length': data.length,
    'content-type': js ? 'text/javascript; charset=utf-8' : 'image/png',
    ...(js ? {'service-worker-allowed': '/'} : {}),
  })
  res.end(data)
}

async function smallBody(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
    throw new HttpError(400, 'The body must be JSON (content-type application/json).', EXIT.USAGE)
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > 8192) throw new HttpError(413, 'The body is over 8192 bytes.', EXIT.USAGE)
    chunks.push(chunk)
  }

  try {
    const v = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as unknown
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>
  } catch {
    // below
  }

  throw new HttpError(400, 'The body must be a JSON object.', EXIT.USAGE)
}
