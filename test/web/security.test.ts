/**
 * `cast web` as an attacker meets it: no cookie (401), a foreign Host (DNS rebinding) or Origin
 * (403), malformed bodies (400 with the JSON error envelope), a used login token, a non-loopback
 * bind without pairing, pairing and revoking a device; hostile titles rendered as text in
 * Chromium; event-stream clients that vanish mid-stream, and a resume by Last-Event-ID.
 */
import http from 'node:http'
import path from 'node:path'

import type {Browser} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {claudeLines, claudeTranscriptPath, json, makeHome, runCast, type TempHome, writeFile} from '../helpers/cli.js'
import {contextKey, inboxPage, launchChromium, signIn, startWeb, type WebServer} from './helpers.js'

interface Reply {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

/** One raw HTTP request (Host and Origin set as an attacker would). */
function request(base: string, p: string, o: {method?: string; headers?: Record<string, string>; body?: string} = {}): Promise<Reply> {
  const u = new URL(base)
  return new Promise((resolve, reject) => {
    const req = http.request({headers: o.headers, host: u.hostname, method: o.method ?? 'GET', path: p, port: u.port}, (res) => {
      let body = ''
      res.on('data', (c) => (body += String(c)))
      res.on('end', () => resolve({body, headers: res.headers, status: res.statusCode!}))
    })
    req.on('error', reject)
    req.end(o.body)
  })
}

const HOSTILE = [
  '<script>window.__pwned = 1</script>',
  '<img src=x onerror="window.__pwned = 2">',
  '[click](javascript:window.__pwned=3) javascript:alert(1)',
  'ESC \u001B]8;;https://evil.example\u0007link\u001B]8;;\u0007 \u001B[2J cleared',
  'bidi \u202Egnp.exe\u202C tail',
]

describe('cast web: who can reach it, and what a page can be made to do', () => {
  let h: TempHome
  let web: WebServer
  let browser: Browser
  let cookie: string
  /** The key the signed-in page keeps and sends as x-cast-key (the cookie alone lets nothing in). */
  let key: string
  let sessionCookie: string
  const proj = '/home/me/src/app'

  beforeAll(async () => {
    h = makeHome()
    const at = new Date(Date.now() - 60_000)
    HOSTILE.forEach((prompt, i) => {
      const id = `5e1f0000-0000-4000-8000-00000000c00${i}`
      writeFile(claudeTranscriptPath(h.home, proj, id), claudeLines({at, cwd: proj, prompt, sessionId: id}))
    })
    // A 1 MB title.
    const big = '5e1f0000-0000-4000-8000-00000000c0ff'
    writeFile(claudeTranscriptPath(h.home, proj, big), claudeLines({at, cwd: proj, prompt: 'M'.repeat(1_000_000), sessionId: big}))
    web = await startWeb(h.env)
    browser = await launchChromium()
    const context = await signIn(browser, web)
    sessionCookie = `cast_session_${new URL(web.base).port}`
    const c = (await context.cookies()).find((x) => x.name === sessionCookie)!
    cookie = `${sessionCookie}=${c.value}`
    expect(c.httpOnly).toBe(true)
    expect(c.sameSite).toBe('Strict')
    key = await contextKey(context, web)
  })

  afterAll(async () => {
    await browser?.close()
    await web?.stop()
    h.cleanup()
  })

  it('refuses without the cookie (401), from a foreign Host (403) or Origin (403); bad bodies get 400 and the envelope', async () => {
    const host = new URL(web.base).host
    const origin = web.base
    expect((await request(web.base, '/api/listing')).status).toBe(401)
    const noCookie = await request(web.base, '/api/listing')
    expect(JSON.parse(noCookie.body).error.code).toBe('refused')
    expect((await request(web.base, '/', {})).status).toBe(401)
    // The used login token does not sign anyone in again.
    expect((await request(web.base, new URL(web.login).pathname + new URL(web.login).search)).status).toBe(401)
    // DNS rebinding: the right cookie and key, a foreign Host.
    expect((await request(web.base, '/api/listing', {headers: {cookie, host: 'evil.example', 'x-cast-key': key}})).status).toBe(403)
    expect((await request(web.base, '/api/listing', {headers: {cookie, host, 'x-cast-key': key}})).status).toBe(200)
    // The cookie without the key: nothing.
    expect((await request(web.base, '/api/listing', {headers: {cookie, host}})).status).toBe(401)
    // Writes: no Origin, a foreign Origin.
    const write = (headers: Record<string, string>, body: string) =>
      request(web.base, '/api/verb', {
        body,
        headers: {'content-type': 'application/json', cookie, host, 'x-cast-key': key, ...headers},
        method: 'POST',
      })
    expect((await write({}, '{"verb":"undo"}')).status).toBe(403)
    expect((await write({origin: 'http://evil.example'}, '{"verb":"undo"}')).status).toBe(403)
    expect((await write({origin: 'null'}, '{"verb":"undo"}')).status).toBe(403)
    // Malformed bodies: 400 with the JSON error envelope (docs/contract.md).
    for (const body of [
      '{"verb":',
      '[]',
      '{"verb":"launch-missiles"}',
      '{"verb":"stash"}',
      '{"verb":"stash","session":"--hide"}',
      '{"verb":"kill","session":"abcd"}',
    ]) {
      const r = await write({origin}, body)
      expect(r.status, body).toBe(400)
      const e = JSON.parse(r.body).error
      expect(e.code).toBe('usage')
      expect(e.exit_code).toBe(2)
      expect(typeof e.message).toBe('string')
    }

    const plain = await request(web.base, '/api/verb', {
      body: 'verb=undo',
      headers: {'content-type': 'text/plain', cookie, host, origin, 'x-cast-key': key},
      method: 'POST',
    })
    expect(plain.status).toBe(400)
    // Every answer carries the CSP: no inline script, no third-party origin, no frames.
    const page = await request(web.base, '/', {headers: {cookie, host}})
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self';/)
    expect(page.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/)
    expect(page.headers['content-security-policy']).not.toMatch(/unsafe-inline/)
  })

  it('renders hostile titles as text: nothing runs, no element is injected, controls are shown', async () => {
    const context = await browser.newContext()
    await context.addCookies([
      {domain: '127.0.0.1', httpOnly: true, name: sessionCookie, path: '/', sameSite: 'Strict', value: cookie.split('=')[1]!},
    ])
    // The key as the page keeps it (its own origin's storage).
    await context.addInitScript((k) => (globalThis as any).localStorage.setItem('cast-key', k), key)
    const page = await inboxPage(context, web)
    const dialogs: string[] = []
    page.on('dialog', (d) => {
      dialogs.push(d.message())
      void d.dismiss()
    })
    await page.waitForFunction((n) => (globalThis as any).document.querySelectorAll('.card').length >= n, HOSTILE.length + 1)
    const titles = await page.$$eval('.card .title', (els) => els.map((e) => e.textContent ?? ''))
    expect(titles.some((t) => t.includes('<script>window.__pwned = 1</script>'))).toBe(true)
    expect(titles.some((t) => t.includes('<img src=x onerror='))).toBe(true)
    expect(titles.some((t) => t.includes('javascript:alert(1)'))).toBe(true)
    // Terminal escapes and bidi overrides are shown, not obeyed.
    expect(titles.some((t) => t.includes('^[]8;;https://evil.example^G'))).toBe(true)
    expect(titles.some((t) => t.includes('<U+202E>gnp.exe<U+202C>'))).toBe(true)
    // The 1 MB title is cut on the card.
    expect(Math.max(...titles.map((t) => t.length))).toBeLessThan(400)
    expect(await page.$$('.card img, .card script, .card a, .card iframe')).toHaveLength(0)
    // Open each card's answer view too: still text.
    for (const id of await page.$$eval('.card', (els) => els.map((e) => e.getAttribute('data-id')!))) {
      // A click focuses a card, a click on the focused card opens it.
      await page.click(`.card[data-id="${id}"]`)
      if (!(await page.isVisible('.answer-title'))) await page.click(`.card[data-id="${id}"]`)
      await page.waitForSelector('.answer-title')
      expect(await page.$$('#answer img, #answer script, #answer a, #answer iframe')).toHaveLength(0)
      await page.keyboard.press('Escape')
      await page.keyboard.press('Escape')
      await page.waitForSelector('#list:not([hidden])')
    }

    expect(await page.evaluate(() => (globalThis as any).__pwned)).toBeUndefined()
    expect(dialogs).toEqual([])
    await context.close()
  })

  it('survives clients that vanish mid-stream, and resumes a stream after Last-Event-ID', async () => {
    const host = new URL(web.base).host
    const u = new URL(web.base)
    // Twenty clients that read a little of the stream and drop the connection.
    for (let i = 0; i < 20; i++) {
      await new Promise<void>((resolve) => {
        const req = http.get({headers: {cookie, host, 'x-cast-key': key}, host: u.hostname, path: '/api/events', port: u.port}, (res) => {
          res.once('data', () => {
            req.destroy()
            resolve()
          })
        })
        req.on('error', () => resolve())
      })
    }

    // A change while they are gone: a pin through the page's own path.
    const listing = JSON.parse((await request(web.base, '/api/listing', {headers: {cookie, host, 'x-cast-key': key}})).body)
    const before = listing.seq as number
    const target = listing.sessions[0].id as string
    const pinned = await request(web.base, '/api/verb', {
      body: JSON.stringify({session: target, verb: 'pin'}),
      headers: {'content-type': 'application/json', cookie, host, origin: web.base, 'x-cast-key': key},
      method: 'POST',
    })
    expect(pinned.status).toBe(200)
    // The server still answers, and a stream resumed after `before` replays what came after it.
    const text = await new Promise<string>((resolve, reject) => {
      let got = ''
      const req = http.get(
        {headers: {cookie, host, 'last-event-id': String(before), 'x-cast-key': key}, host: u.hostname, path: '/api/events', port: u.port},
        (res) => {
          res.on('data', (c) => {
            got += String(c)
            if (got.includes('event: snapshot')) {
              req.destroy()
              resolve(got)
            }
          })
        },
      )
      req.on('error', reject)
    })
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))
    // Each transition after `before` once, in order; then the snapshot carries the last seq.
    expect(ids.length).toBeGreaterThan(1)
    expect(ids[0]).toBe(before + 1)
    expect(ids).toEqual([...ids].sort((a, b) => a - b))
    expect(new Set(ids.slice(0, -1)).size).toBe(ids.length - 1)
    expect(text).toMatch(/event: transition\ndata: \{"schema":1,"event":"transition"/)
    expect(text).toContain(target)
    expect((await request(web.base, '/api/listing', {headers: {cookie, host, 'x-cast-key': key}})).status).toBe(200)
    expect(web.child.exitCode).toBeNull()
  })

  it('binds another address only after pairing; a device trades its code once for a revocable credential', async () => {
    const env = {...h.env}
    const refused = await runCast(['web', '--listen', '0.0.0.0', '--port', '0'], {env, timeout: 20_000})
    expect(refused.code).toBe(5)
    expect(refused.stderr.trim().split('\n')).toHaveLength(1)
    expect(refused.stderr).toMatch(/none is paired: run "cast web pair" first/)
    const pair = json(await runCast(['web', 'pair', '--json'], {env}))
    expect(pair.code).toMatch(/^[2-9A-Z]{4}-[2-9A-Z]{4}$/)
    // The code is stored hashed, the file 0600.
    const fs = await import('node:fs')
    const file = path.join(h.castHome, 'web', 'pair.json')
    expect(fs.readFileSync(file, 'utf8')).not.toContain(pair.code.replace('-', ''))
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    const lan = await startWeb(env, ['--listen', '0.0.0.0'])
    try {
      const host = new URL(lan.base).host
      const trade = (code: string) =>
        request(lan.base, '/api/pair', {
          body: JSON.stringify({code, name: 'phone'}),
          headers: {'content-type': 'application/json', host, origin: lan.base},
          method: 'POST',
        })
      expect((await trade('AAAA-AAAA')).status).toBe(401)
      const ok = await trade(pair.code.toLowerCase())
      expect(ok.status).toBe(200)
      const deviceCookie = `cast_device_${new URL(lan.base).port}`
      const cred = new RegExp(`${deviceCookie}=([^;]+)`).exec(String(ok.headers['set-cookie']))![1]!
      expect(String(ok.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict/)
      // Used once.
      expect((await trade(pair.code)).status).toBe(401)
      const device = {cookie: `${deviceCookie}=${cred}`, host, 'x-cast-key': JSON.parse(ok.body).key as string}
      expect((await request(lan.base, '/api/listing', {headers: {cookie: device.cookie, host}})).status).toBe(401)
      expect((await request(lan.base, '/api/listing', {headers: device})).status).toBe(200)
      const devices = json(await runCast(['web', 'devices', '--json'], {env}))
      expect(devices.devices.map((d: any) => d.name)).toEqual(['phone'])
      expect(fs.readFileSync(path.join(h.castHome, 'web', 'devices.json'), 'utf8')).not.toContain(cred.split('.')[1])
      await runCast(['web', 'devices', '--revoke', devices.devices[0].id], {env})
      expect((await request(lan.base, '/api/listing', {headers: device})).status).toBe(401)
    } finally {
      await lan.stop()
    }
  })

  it('cast daemon --web serves the same page beside the ingester, and stops with it', async () => {
    const env = {...h.env}
    // The suite's own cast web holds the ingester lease: this daemon gets a home of its own.
    const other = makeHome()
    try {
      const daemon = await startWeb({...env, CAST_HOME: other.castHome, HOME: other.home}, ['--web', '--web-port', '0'], ['daemon'])
      const login = await request(daemon.base, new URL(daemon.login).pathname + new URL(daemon.login).search, {
        headers: {host: new URL(daemon.base).host},
      })
      expect(login.status).toBe(303)
      const name = `cast_session_${new URL(daemon.base).port}`
      const sid = new RegExp(`${name}=([^;]+)`).exec(String(login.headers['set-cookie']))![1]!
      const listing = await request(daemon.base, '/api/listing', {
        headers: {
          cookie: `${name}=${sid}`,
          host: new URL(daemon.base).host,
          'x-cast-key': /#key=([\w-]+)/.exec(String(login.headers.location))![1]!,
        },
      })
      expect(listing.status).toBe(200)
      expect(JSON.parse(listing.body).tally).toMatch(/^needs input 0 · done 0/)
      await daemon.stop()
      expect(daemon.child.exitCode).toBe(0)
    } finally {
      other.cleanup()
    }
  })
})
