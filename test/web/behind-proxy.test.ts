/**
 * `cast web --behind-proxy URL` for real: a TLS-terminating reverse proxy (node:https with a
 * certificate of a test CA, forwarding as Caddy does: Host kept, X-Forwarded-Proto/Host set)
 * in front of `cast web --listen 0.0.0.0`, and Chromium through it. The page signs in at the
 * public address with a `__Host-` Secure cookie; straight to cast web, a forged forwarded host or
 * scheme, a Host that is not the public one, a write from the http origin, and any connection
 * from a non-loopback address are refused (403).
 */
import http from 'node:http'
import https from 'node:https'
import os from 'node:os'
import fs from 'node:fs'
import path from 'node:path'

import type {Browser} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {makeHome, runCast, type TempHome} from '../helpers/cli.js'
import {chromiumTrusting, makeCa, makeCert, makeKey, request, type Started, startCast} from './tls-helpers.js'

/** This machine's first non-loopback IPv4 address, if it has one. */
const lan = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address

describe('cast web --behind-proxy', () => {
  let h: TempHome
  let web: Started
  let browser: Browser
  let proxy: https.Server
  let publicOrigin = ''
  let castPort = 0

  beforeAll(async () => {
    h = makeHome()
    const ca = makeCa(path.join(h.dir, 'tls'))
    const key = makeKey(ca, 'proxy')
    const cert = makeCert(ca, key, '3001')
    // The proxy: TLS for the public address, plain HTTP to cast web on loopback.
    proxy = https.createServer({cert, key: fs.readFileSync(key)}, (req, res) => {
      const up = http.request(
        {
          headers: {...req.headers, 'x-forwarded-host': req.headers.host ?? '', 'x-forwarded-proto': 'https'},
          host: '127.0.0.1',
          method: req.method,
          path: req.url,
          port: castPort,
        },
        (r) => {
          res.writeHead(r.statusCode!, r.headers)
          r.pipe(res)
        },
      )
      up.on('error', () => res.destroy())
      req.pipe(up)
    })
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()))
    publicOrigin = `https://localhost:${(proxy.address() as {port: number}).port}`
    // --listen 0.0.0.0 so that a non-loopback connection can reach it at all (and be refused); it needs a pairing pending.
    expect((await runCast(['web', 'pair'], {env: h.env})).code).toBe(0)
    web = await startCast(h.env, ['web', '--port', '0', '--listen', '0.0.0.0', '--behind-proxy', publicOrigin])
    castPort = Number(/forwards \S+ to http:\/\/127\.0\.0\.1:(\d+)/.exec(web.stdout())?.[1] ?? 0)
    expect(castPort).toBeGreaterThan(0)
    browser = await chromiumTrusting([key])
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await web?.stop()
    proxy?.close()
    h?.cleanup()
  })

  it('prints the public address, and Chromium signs in through the proxy with a __Host- Secure cookie', async () => {
    expect(web.base).toBe(publicOrigin)
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(web.login)
    await page.waitForSelector('#tally')
    await page.waitForFunction(() => (globalThis as any).document.querySelector('#conn')?.textContent === 'live', null, {timeout: 60_000})
    const cookies = await context.cookies()
    expect(cookies).toHaveLength(1)
    expect(cookies[0]!.name).toMatch(/^__Host-cast_session_\d+$/)
    expect(cookies[0]).toMatchObject({httpOnly: true, secure: true})
    const keyValue = await page.evaluate(() => (globalThis as any).localStorage.getItem('cast-key') as string)
    await context.close()

    // Straight to cast web on loopback, as the proxy or another program on this machine.
    const port = castPort
    expect(cookies[0]!.name).toBe(`__Host-cast_session_${port}`)
    const direct = `http://127.0.0.1:${port}/api/listing`
    const cred = {cookie: `${cookies[0]!.name}=${cookies[0]!.value}`, 'x-cast-key': keyValue}
    const pub = new URL(publicOrigin).host
    const asProxy = {...cred, host: pub, 'x-forwarded-host': pub, 'x-forwarded-proto': 'https'}
    expect((await request(direct, {headers: asProxy})).status).toBe(200)
    // A proxy that rewrites Host and says where it came from in Forwarded (RFC 7239).
    const rfc = {...cred, forwarded: `for=127.0.0.1;proto=https;host="${pub}"`, host: `127.0.0.1:${port}`}
    expect((await request(direct, {headers: rfc})).status).toBe(200)

    const refused = async (headers: Record<string, string>): Promise<number> => (await request(direct, {headers})).status
    expect(await refused({...asProxy, 'x-forwarded-host': 'evil.example'})).toBe(403)
    expect(await refused({...asProxy, 'x-forwarded-host': `${pub}, evil.example`})).toBe(403)
    expect(await refused({...asProxy, 'x-forwarded-proto': 'http'})).toBe(403)
    expect(await refused({...rfc, forwarded: `proto=https;host=evil.example`})).toBe(403)
    // Around the proxy: a browser on this machine at 127.0.0.1 (no forwarded host), or a rebinding page's own Host.
    expect(await refused({...cred, host: `127.0.0.1:${port}`})).toBe(403)
    expect(await refused({...cred, host: `evil.example:${port}`, 'x-forwarded-host': pub, 'x-forwarded-proto': 'https'})).toBe(403)

    // A write carries the public https origin; the http one is another origin.
    const write = (origin: string) =>
      request(`http://127.0.0.1:${port}/api/presence`, {
        body: JSON.stringify({name: 'away'}),
        headers: {...asProxy, 'content-type': 'application/json', origin},
        method: 'POST',
      })
    expect((await write(`http://${pub}`)).status).toBe(403)
    expect((await write(publicOrigin)).status).not.toBe(403)

    // From another address of this machine (not loopback): refused, however it is dressed.
    if (lan) {
      const far = await request(`http://${lan}:${port}/api/listing`, {headers: asProxy})
      expect(far.status).toBe(403)
      expect(far.body).toMatch(/answers its proxy on this machine only/)
    }
  }, 180_000)

  it('cast web pair --https prints an https pairing address (443 left out)', async () => {
    const on443 = await runCast(['web', 'pair', '--listen', 'box.example', '--port', '443', '--https', '--no-qr'], {env: h.env})
    expect(on443.stdout).toMatch(/open https:\/\/box\.example\/pair#[\w-]+ /)
    const onPort = await runCast(['web', 'pair', '--listen', 'box.example', '--port', '4280', '--https', '--no-qr'], {env: h.env})
    expect(onPort.stdout).toMatch(/open https:\/\/box\.example:4280\/pair#[\w-]+ /)
  }, 60_000)

  it('a public address that is not an origin is one line and exit 2', async () => {
    for (const bad of ['box.example', 'https://box.example/inbox', 'ftp://box.example']) {
      const r = await runCast(['web', '--port', '0', '--behind-proxy', bad], {env: h.env})
      expect(r.code).toBe(2)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
    }
  }, 120_000)
})
