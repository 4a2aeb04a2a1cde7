/**
 * `cast web` under test: the built CLI as a child process (its own CAST_HOME), and Debian's
 * Chromium driven by playwright-core with a fresh profile. Screenshots go to
 * test/web/.artifacts/ (gitignored).
 */
import {type ChildProcess, spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {type Browser, type BrowserContext, chromium, type Page} from 'playwright-core'

import {BIN} from '../helpers/cli.js'

export const ARTIFACTS = path.resolve(import.meta.dirname, '.artifacts')
export const CHROMIUM = process.env.CAST_TEST_CHROMIUM || '/usr/bin/chromium'

export interface WebServer {
  readonly child: ChildProcess
  /** http://127.0.0.1:PORT */
  readonly base: string
  /** The one-time login address it printed. */
  readonly login: string
  stderr(): string
  stop(): Promise<void>
}

/** Start `cast web --port 0 ARGS` (or another command line that serves it) and wait for the address it prints. */
export function startWeb(env: Record<string, string>, args: readonly string[] = [], command = ['web', '--port', '0']): Promise<WebServer> {
  const child = spawn(process.execPath, [BIN, ...command, ...args], {env, stdio: ['ignore', 'pipe', 'pipe']})
  let out = ''
  let err = ''
  child.stderr!.on('data', (c) => (err += String(c)))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cast web printed no address: ${out}\n${err}`)), 30_000)
    child.on('exit', (code) => reject(new Error(`cast web exited ${code}: ${out}\n${err}`)))
    child.stdout!.on('data', (c) => {
      out += String(c)
      const m = /(http:\/\/[\d.]+:\d+)\/login\?token=[\w-]+/.exec(out)
      if (!m) return
      clearTimeout(timer)
      resolve({
        base: m[1]!,
        child,
        login: m[0],
        stderr: () => err,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done()
            child.once('exit', () => done())
            child.kill('SIGTERM')
          }),
      })
    })
  })
}

export function launchChromium(): Promise<Browser> {
  // launch() gives every browser a fresh temporary profile of its own (it refuses --user-data-dir).
  return chromium.launch({
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    executablePath: CHROMIUM,
  })
}

/** A signed-in browser context: the one-time login address opened once (its cookie then serves every page). */
export async function signIn(browser: Browser, web: WebServer): Promise<BrowserContext> {
  const context = await browser.newContext({viewport: {height: 900, width: 1280}})
  const page = await context.newPage()
  await page.goto(web.login)
  await page.waitForSelector('#tally')
  await page.close()
  return context
}

/** A new page of a signed-in context, the inbox drawn. */
export async function inboxPage(context: BrowserContext, web: WebServer, viewport = {height: 900, width: 1280}): Promise<Page> {
  const page = await context.newPage()
  await page.setViewportSize(viewport)
  await page.goto(web.base + '/')
  await page.waitForSelector('#tally')
  // The first paint draws the head of the listing; the stream's snapshot brings the rest.
  await page.waitForFunction(() => (globalThis as any).document.querySelector('#conn')?.textContent === 'live')
  return page
}

/** Sections as the page shows them: bucket → the count in its heading. */
export async function pageSections(page: Page): Promise<Record<string, number>> {
  return page.$$eval('section.section', (els) =>
    Object.fromEntries(
      els.map((el) => [
        el.getAttribute('data-bucket')!,
        Number(/\((\d+)\)/.exec(el.querySelector('.count')?.textContent ?? '')?.[1] ?? -1),
      ]),
    ),
  )
}

export function saveArtifact(name: string): string {
  fs.mkdirSync(ARTIFACTS, {recursive: true})
  return path.join(ARTIFACTS, name)
}

/** What a signed-in client sends: the cookie (named with the port) and the key header the page keeps in its storage. */
export interface Credential {
  /** `cast_session_PORT=…` (or a device's `cast_device_PORT=…`). */
  readonly cookie: string
  /** The x-cast-key header's value. */
  readonly key: string
  /** Both, with the Host header cast expects. */
  readonly headers: Record<string, string>
}

/** Sign in over plain HTTP with the one-time login address: the session's cookie and key. */
export async function apiSession(web: WebServer): Promise<Credential> {
  const res = await fetch(web.login, {redirect: 'manual'})
  if (res.status !== 303) throw new Error(`login answered ${res.status}`)
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!
  // A build without the key (the cookie alone) gets '' and fails the attack tests at their assertions.
  const key = /#key=([\w-]+)/.exec(res.headers.get('location') ?? '')?.[1] ?? ''
  if (!cookie.startsWith('cast_session')) throw new Error(`login gave no cookie: ${res.headers.get('set-cookie')}`)
  return credential(web, cookie, key)
}

export function credential(web: WebServer, cookie: string, key: string): Credential {
  return {cookie, headers: {cookie, host: new URL(web.base).host, 'x-cast-key': key}, key}
}

/** The key a signed-in browser context's page keeps (api.ts KEY_STORE). */
export async function contextKey(context: BrowserContext, web: WebServer): Promise<string> {
  const page = await context.newPage()
  await page.goto(web.base + '/pair')
  const key = await page.evaluate(() => (globalThis as any).localStorage.getItem('cast-key') as string | null)
  await page.close()
  if (!key) throw new Error('the signed-in context holds no key')
  return key
}
