/**
 * Web Push from this machine to a push service (a real HTTP endpoint on loopback that decrypts
 * every request with the subscription's keys and checks its VAPID JWT): the payload arrives
 * intact and sanitized, 404/410 drop the subscription, 429/5xx back off, a revoked device is
 * never pushed to, and `cast web devices --revoke` deletes its subscriptions.
 */
import fs from 'node:fs'
import path from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {Notification} from '../../src/core/model/notify.js'
import {dropSubscriptions, listSubscriptions, saveSubscription, vapidKeys} from '../../src/lib/push/files.js'
import {buildPayload} from '../../src/lib/push/payload.js'
import {pushToDevices} from '../../src/lib/push/send.js'
import {encryptPayload} from '../../src/lib/push/webpush.js'
import {exchangePairCode, newPairCode} from '../../src/lib/home/devices.js'
import {json, makeHome, runCast, type TempHome} from '../helpers/cli.js'
import {decryptAes128gcm, type PushService, startPushService} from './endpoint.js'

const ENV = {CAST_PUSH_LOOPBACK_HTTP: '1'}

function page(title: string, body: string): Notification {
  return {body, keys: [], kind: 'approval', sessions: ['claude_code:abc'], summary: title, urgency: 'normal'}
}

describe('Web Push to a subscribed device', () => {
  let h: TempHome
  let svc: PushService
  let device: string

  beforeAll(async () => {
    h = makeHome()
    svc = await startPushService()
    const {code} = newPairCode(h.castHome, Date.now())
    device = exchangePairCode(h.castHome, code, 'phone', Date.now())!.device.id
  })

  afterAll(async () => {
    await svc?.close()
    h?.cleanup()
  })

  it('encrypts as RFC 8291 Appendix A says, byte for byte', () => {
    const b = (s: string) => Buffer.from(s, 'base64url')
    const keys = {
      auth: 'BTBZMqHH6r4Tts7J_aSIgg',
      p256dh: 'BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4',
    }
    const body = encryptPayload(Buffer.from('When I grow up, I want to be a watermelon'), keys, {
      salt: b('DGv6ra1nlYgDCS1FRnbzlw'),
      senderPrivate: b('yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw'),
    })
    expect(body.toString('base64url')).toBe(
      'DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN',
    )
    // And the test's own decryptor reads it back (the one the push service below uses).
    expect(decryptAes128gcm(body, b('q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94'), b(keys.p256dh), b(keys.auth))).toBe(
      'When I grow up, I want to be a watermelon',
    )
  })

  it('keeps one VAPID key pair per machine, in a 0600 file', () => {
    const a = vapidKeys(h.castHome)
    expect(vapidKeys(h.castHome)).toEqual(a)
    const st = fs.statSync(path.join(h.castHome, 'push', 'vapid.json'))
    expect(st.mode & 0o777).toBe(0o600)
    expect(Buffer.from(a.publicKey, 'base64url')).toHaveLength(65)
  })

  it('delivers a sanitized page the push service can decrypt, signed with the machine’s VAPID key', async () => {
    const sub = svc.subscription('/ok')
    saveSubscription(h.castHome, {created_at: new Date().toISOString(), device, ...sub})
    const hostile = 'Deploy \u001b[31mnow\u202e gnp.exe'
    const p = buildPayload(page('Claude Code is waiting for approval', `${hostile}\nApprove Bash?`), new Map(), {
      actions: true,
      content: 'full',
      home: h.castHome,
      now: Date.now(),
      questions: 2,
      via: 'push',
    })
    const r = await pushToDevices(h.castHome, ENV, p, Date.now())
    expect(r).toEqual([expect.objectContaining({device, outcome: 'sent', status: 201})])
    const got = svc.received.at(-1)!
    expect(got.plaintext.startsWith('UNDECRYPTABLE')).toBe(false)
    const payload = JSON.parse(got.plaintext) as {title: string; body: string; badge: number}
    expect(payload.title).toBe('Claude Code is waiting for approval')
    expect(payload.badge).toBe(2)
    expect(payload.body.includes('\u001b') || payload.body.includes('\u202e')).toBe(false)
    expect(payload.body).toContain('Deploy')
    expect(got.jwt.valid).toBe(true)
    expect(got.jwt.key).toBe(vapidKeys(h.castHome).publicKey)
    expect(got.headers['content-encoding']).toBe('aes128gcm')
    expect(Number(got.headers['ttl'])).toBeGreaterThan(0)
  })

  it('content-free mode sends only a count', async () => {
    const p = buildPayload(page('Claude Code is waiting for approval', 'secret-title\nApprove Bash?'), new Map(), {
      actions: true,
      content: 'none',
      home: h.castHome,
      now: Date.now(),
      questions: 1,
      via: 'push',
    })
    await pushToDevices(h.castHome, ENV, p, Date.now())
    const text = svc.received.at(-1)!.plaintext
    expect(text).not.toContain('secret-title')
    expect(text).not.toContain('Bash')
    expect(JSON.parse(text).title).toBe('cast: 1 session needs you')
  })

  it('drops a subscription the push service says is gone, and backs off on 429 and 5xx', async () => {
    const now = Date.now()
    dropSubscriptions(h.castHome, device)
    const gone = svc.subscription('/gone')
    const busy = svc.subscription('/busy')
    const down = svc.subscription('/down')
    for (const s of [gone, busy, down]) saveSubscription(h.castHome, {created_at: new Date().toISOString(), device, ...s})
    svc.answer('/gone', 410)
    svc.answer('/busy', 429, {'retry-after': '120'})
    svc.answer('/down', 503)
    const p = buildPayload(page('x', 'y'), new Map(), {actions: false, content: 'full', home: h.castHome, now, questions: 0, via: 'push'})
    const first = await pushToDevices(h.castHome, ENV, p, now)
    const by = (e: string) => first.find((x) => x.endpoint.endsWith(e))!
    expect(by('/gone').outcome).toBe('dropped')
    expect(by('/busy').outcome).toBe('backoff')
    expect(by('/down').outcome).toBe('backoff')
    const left = listSubscriptions(h.castHome)
    expect(left.map((s) => new URL(s.endpoint).pathname).sort()).toEqual(['/busy', '/down'])
    expect(left.find((s) => s.endpoint.endsWith('/busy'))!.retry_at).toBe(now + 120_000)
    // Inside the back-off nothing is sent to them.
    const before = svc.received.length
    const second = await pushToDevices(h.castHome, ENV, p, now + 1000)
    expect(second.every((x) => x.outcome === 'skipped')).toBe(true)
    expect(svc.received.length).toBe(before)
  })

  it('never pushes to a revoked device, and revoking deletes its subscriptions', async () => {
    dropSubscriptions(h.castHome, 'all')
    saveSubscription(h.castHome, {created_at: new Date().toISOString(), device, ...svc.subscription('/revoked')})
    const r = await runCast(['web', 'devices', '--revoke', device, '--json'], {env: h.env})
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).revoked).toEqual([device])
    expect(listSubscriptions(h.castHome)).toEqual([])
    // A subscription left behind by hand for a device that is gone: dropped, not sent.
    saveSubscription(h.castHome, {created_at: new Date().toISOString(), device, ...svc.subscription('/orphan')})
    const before = svc.received.length
    const p = buildPayload(page('x', 'y'), new Map(), {
      actions: false,
      content: 'full',
      home: h.castHome,
      now: Date.now(),
      questions: 0,
      via: 'push',
    })
    expect((await pushToDevices(h.castHome, ENV, p, Date.now()))[0]!.outcome).toBe('dropped')
    expect(svc.received.length).toBe(before)
    expect(listSubscriptions(h.castHome)).toEqual([])
  })
})
