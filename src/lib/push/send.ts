/**
 * Send a page to every subscribed device (RFC 8030: one POST per subscription, the body
 * encrypted for it, VAPID-signed). The push service's answer decides the subscription's fate:
 * 201/202 sent; 404 or 410 it is gone (dropped); 429 or 5xx back off (Retry-After, else doubling
 * from 30 s to an hour) and skip it until then; anything else is an error for that device only.
 * A subscription whose device was revoked is dropped, never sent to.
 */
import {listDevices} from '../home/devices.js'
import {listSubscriptions, type Subscription, updateSubscriptions, vapidKeys} from './files.js'
import type {PagePayload} from './payload.js'
import {encryptPayload, type VapidKeys, vapidAuthorization} from './webpush.js'

export interface PushResult {
  readonly device: string
  readonly endpoint: string
  readonly outcome: 'sent' | 'dropped' | 'backoff' | 'skipped' | 'error'
  readonly status: number | null
  readonly detail?: string
}

/** Who the push service may contact about our pushes (RFC 8292 "sub"). */
export const VAPID_SUBJECT = 'mailto:cast@localhost'

/** Endpoints a push goes to: https, or loopback http when CAST_PUSH_LOOPBACK_HTTP=1 (a local push server). */
export function endpointAllowed(endpoint: string, env: Readonly<Record<string, string | undefined>>): boolean {
  try {
    const u = new URL(endpoint)
    if (u.username || u.password) return false
    if (u.protocol === 'https:') return true
    return u.protocol === 'http:' && env.CAST_PUSH_LOOPBACK_HTTP === '1' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)
  } catch {
    return false
  }
}

function backoffMs(failures: number, retryAfter: string | null, now: number): number {
  if (retryAfter) {
    const s = Number(retryAfter)
    if (Number.isFinite(s) && s >= 0) return Math.min(s * 1000, 6 * 3600_000)
    const at = Date.parse(retryAfter)
    if (Number.isFinite(at)) return Math.min(Math.max(at - now, 0), 6 * 3600_000)
  }

  return Math.min(30_000 * 2 ** Math.max(failures - 1, 0), 3600_000)
}

/** One RFC 8030 push request. */
export async function pushTo(
  sub: Pick<Subscription, 'endpoint' | 'keys'>,
  payload: PagePayload,
  keys: VapidKeys,
  now: number,
): Promise<{status: number; retryAfter: string | null}> {
  const body = encryptPayload(Buffer.from(JSON.stringify(payload)), sub.keys)
  const r = await fetch(sub.endpoint, {
    body,
    headers: {
      authorization: vapidAuthorization(sub.endpoint, keys, VAPID_SUBJECT, now),
      'content-encoding': 'aes128gcm',
      'content-type': 'application/octet-stream',
      // A page about a waiting agent is worth waking the phone; kept a day if the phone is off.
      ttl: '86400',
      urgency: 'high',
      // The push service keeps only the newest message of a topic for a phone that is offline.
      topic: payload.tag.replace(/[^\w-]/g, '').slice(0, 32),
    },
    method: 'POST',
    redirect: 'error',
    signal: AbortSignal.timeout(15_000),
  })
  await r.arrayBuffer().catch(() => undefined)
  return {retryAfter: r.headers.get('retry-after'), status: r.status}
}

/** Push to every subscription of a paired device; the subscriptions file is updated with each outcome. */
export async function pushToDevices(
  home: string,
  env: Readonly<Record<string, string | undefined>>,
  payload: PagePayload,
  now: number,
  only?: string,
): Promise<PushResult[]> {
  const devices = new Set(listDevices(home).map((d) => d.id))
  const subs = listSubscriptions(home).filter((s) => only === undefined || s.device === only)
  if (subs.length === 0) return []
  const keys = vapidKeys(home)
  const results: PushResult[] = []
  const next = new Map<string, Subscription | null>()
  await Promise.all(
    subs.map(async (s) => {
      const base = {device: s.device, endpoint: s.endpoint}
      if (!devices.has(s.device)) {
        next.set(s.endpoint, null)
        results.push({...base, detail: 'the device was revoked', outcome: 'dropped', status: null})
        return
      }

      if (!endpointAllowed(s.endpoint, env)) {
        results.push({...base, detail: 'the endpoint is not https', outcome: 'skipped', status: null})
        return
      }

      if (s.retry_at !== undefined && s.retry_at > now) {
        results.push({...base, detail: `backing off until ${new Date(s.retry_at).toISOString()}`, outcome: 'skipped', status: null})
        return
      }

      try {
        const r = await pushTo(s, payload, keys, now)
        if (r.status >= 200 && r.status < 300) {
          if (s.failures) next.set(s.endpoint, {...s, failures: 0, retry_at: undefined})
          results.push({...base, outcome: 'sent', status: r.status})
        } else if (r.status === 404 || r.status === 410) {
          next.set(s.endpoint, null)
          results.push({...base, detail: 'the push service says the subscription is gone', outcome: 'dropped', status: r.status})
        } else if (r.status === 429 || r.status >= 500) {
          const failures = (s.failures ?? 0) + 1
          const retryAt = now + backoffMs(failures, r.retryAfter, now)
          next.set(s.endpoint, {...s, failures, retry_at: retryAt})
          results.push({...base, detail: `retry after ${new Date(retryAt).toISOString()}`, outcome: 'backoff', status: r.status})
        } else {
          results.push({...base, detail: `the push service answered ${r.status}`, outcome: 'error', status: r.status})
        }
      } catch (error) {
        results.push({...base, detail: (error as Error).message, outcome: 'error', status: null})
      }
    }),
  )
  if (next.size > 0) updateSubscriptions(home, (s) => (next.has(s.endpoint) ? next.get(s.endpoint)! : s))
  return results
}
