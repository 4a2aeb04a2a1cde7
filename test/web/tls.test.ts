/**
 * `cast web --tls-cert FILE --tls-key FILE` for real: a test CA and certificates from openssl,
 * Chromium over HTTPS. The page loads and signs in; its cookie is `__Host-` and Secure; plain
 * HTTP to the TLS port gets nothing; a renewed certificate (new key, new serial) written over the
 * files is what a new connection gets, without a restart; a bad new pair keeps the old one
 * serving with one line on stderr. At start, a missing, unreadable or mismatched file is one line
 * and exit 2. Without --behind-proxy, forwarded headers claim nothing.
 */
import fs from 'node:fs'
import path from 'node:path'

import type {Browser} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {makeHome, runCast, type TempHome} from '../helpers/cli.js'
import {waitFor} from '../fakes/agents.js'
import {startWeb} from './helpers.js'
import {chromiumTrusting, makeCa, makeCert, makeKey, request, servedSerial, type Started, startCast, type TestCa} from './tls-helpers.js'

describe('cast web over HTTPS', () => {
  let h: TempHome
  let ca: TestCa
  let web: Started
  let browser: Browser
  let certFile: string
  let keyFile: string
  let key1: string
  let key2: string

  beforeAll(async () => {
    h = makeHome()
    ca = makeCa(path.join(h.dir, 'tls'))
    key1 = makeKey(ca, 'one')
    key2 = makeKey(ca, 'two')
    certFile = path.join(ca.dir, 'served.crt')
    keyFile = path.join(ca.dir, 'served.key')
    fs.writeFileSync(certFile, makeCert(ca, key1, '1001'))
    fs.copyFileSync(key1, keyFile)
    web = await startCast(h.env, ['web', '--port', '0', '--tls-cert', certFile, '--tls-key', keyFile])
    browser = await chromiumTrusting([key1, key2])
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await web?.stop()
    h?.cleanup()
  })

  const port = (): number => Number(new URL(web.base).port)

  it('prints an https address; Chromium signs in over it; the cookie is __Host- and Secure', async () => {
    expect(web.login).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/login\?token=/)
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(web.login)
    await page.waitForSelector('#tally')
    await page.waitForFunction(() => (globalThis as any).document.querySelector('#conn')?.textContent === 'live', null, {timeout: 60_000})
    expect(new URL(page.url()).protocol).toBe('https:')
    expect(await page.evaluate(() => (globalThis as any).isSecureContext)).toBe(true)
    const cookies = await context.cookies()
    expect(cookies.map((c) => c.name)).toEqual([`__Host-cast_session_${port()}`])
    expect(cookies[0]).toMatchObject({httpOnly: true, path: '/', sameSite: 'Strict', secure: true})
    await context.close()
  }, 120_000)

  it('plain http to the TLS port gets no answer', async () => {
    const got = await request(`http://127.0.0.1:${port()}/`).then(
      (r) => `status ${r.status}`,
      (error: Error) => `error ${error.message}`,
    )
    expect(got).toMatch(/^error /)
  }, 60_000)

  it('a renewed certificate written over the files is served to a new connection without a restart', async () => {
    expect(await servedSerial(port(), ca.pem)).toBe('1001')
    // As certbot and `tailscale cert` do: a new key and a new certificate, each file replaced.
    fs.writeFileSync(`${keyFile}.new`, fs.readFileSync(key2))
    fs.renameSync(`${keyFile}.new`, keyFile)
    fs.writeFileSync(`${certFile}.new`, makeCert(ca, key2, '1002'))
    fs.renameSync(`${certFile}.new`, certFile)
    await waitFor(
      async () => (await servedSerial(port(), ca.pem)) === '1002',
      60_000,
      () => web.stderr(),
    )
    expect(web.stderr()).toMatch(/TLS certificate reloaded \(serial 1002/)
    // The browser too: a new context over the new certificate.
    const context = await browser.newContext()
    const page = await context.newPage()
    const res = await page.goto(`${web.base}/pair`)
    expect(res?.status()).toBe(200)
    await context.close()
  }, 120_000)

  it('a bad new pair (the key of another certificate) keeps the old one serving, in one line', async () => {
    const before = web.stderr()
    // A certificate for key1 over the files, the key left as key2: they do not match.
    fs.writeFileSync(certFile, makeCert(ca, key1, '1003'))
    const line = await waitFor(
      () => /^.*was not loaded.*$/m.exec(web.stderr().slice(before.length))?.[0],
      60_000,
      () => web.stderr(),
    )
    expect(line).toMatch(/still serving serial 1002: --tls-key ".*served\.key" is not the key of the certificate/)
    expect(await servedSerial(port(), ca.pem)).toBe('1002')
    // Garbage over the certificate: still the old one.
    fs.writeFileSync(certFile, 'not a certificate\n')
    await waitFor(
      () => /holds no PEM certificate/.test(web.stderr()),
      60_000,
      () => web.stderr(),
    )
    expect(await servedSerial(port(), ca.pem)).toBe('1002')
    expect(web.child.exitCode).toBeNull()
    // Each bad pair is one line.
    expect(web.stderr().slice(before.length).trim().split('\n')).toHaveLength(2)
  }, 120_000)

  it('a missing, unreadable or mismatched pair at start is one line and exit 2', async () => {
    const good = path.join(ca.dir, 'good.crt')
    fs.writeFileSync(good, makeCert(ca, key1, '2001'))
    const run = (cert: string, key: string) => runCast(['web', '--port', '0', '--tls-cert', cert, '--tls-key', key], {env: h.env})
    const missing = await run(path.join(ca.dir, 'nope.crt'), key1)
    expect(missing.code).toBe(2)
    expect(missing.stderr.trim().split('\n')).toHaveLength(1)
    expect(missing.stderr).toMatch(/--tls-cert ".*nope\.crt" does not exist/)
    const mismatched = await run(good, key2)
    expect(mismatched.code).toBe(2)
    expect(mismatched.stderr).toMatch(/is not the key of the certificate/)
    const notPem = path.join(ca.dir, 'text.key')
    fs.writeFileSync(notPem, 'hello\n')
    const bad = await run(good, notPem)
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/holds no PEM private key/)
    if (process.getuid?.() !== 0) {
      const locked = path.join(ca.dir, 'locked.key')
      fs.copyFileSync(key1, locked)
      fs.chmodSync(locked, 0o000)
      const unreadable = await run(good, locked)
      expect(unreadable.code).toBe(2)
      expect(unreadable.stderr).toMatch(/is not readable by this user/)
    }

    const half = await runCast(['web', '--port', '0', '--tls-cert', good], {env: h.env})
    expect(half.code).toBe(2)
  }, 120_000)
})

describe('cast web without --behind-proxy', () => {
  let h: TempHome
  let web: Awaited<ReturnType<typeof startWeb>>

  beforeAll(async () => {
    h = makeHome()
    web = await startWeb(h.env)
  }, 60_000)

  afterAll(async () => {
    await web?.stop()
    h?.cleanup()
  })

  it('ignores forwarded headers: they neither claim https nor pass a foreign Host', async () => {
    const host = new URL(web.base).host
    const forged = {'x-forwarded-host': host, 'x-forwarded-proto': 'https', forwarded: `proto=https;host=${host}`}
    const foreign = await request(web.login, {headers: {...forged, host: 'evil.example:80'}})
    expect(foreign.status).toBe(403)
    const login = await request(web.login, {headers: {...forged, host}})
    expect(login.status).toBe(303)
    const cookie = String(login.headers['set-cookie'])
    expect(cookie).toMatch(/^cast_session_\d+=/)
    expect(cookie).not.toMatch(/Secure/)
  }, 60_000)
})
