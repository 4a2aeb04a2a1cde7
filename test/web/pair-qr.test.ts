/**
 * `cast web pair` draws the pairing address as a QR code on a terminal: run in a real tmux pane
 * (a TTY), the screen is read back (half blocks to modules), decoded with jsQR, and must be the
 * address printed under it. That address, opened in Chromium, fills the code in, takes it out of
 * the address bar, and pairs the browser. In a pipe no QR unless --qr; --no-qr and --json never.
 */
import {execFileSync} from 'node:child_process'
import path from 'node:path'

import jsqr from 'jsqr'
import type {Browser} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BIN, makeHome, runCast, type TempHome} from '../helpers/cli.js'
import {launchChromium, startWeb, type WebServer} from './helpers.js'

// jsqr is CommonJS: its module object is the function, and its `default` is the function too (the typed one).
const jsQR = jsqr.default

const BLOCKS = /[▀▄█]/

/** Screen lines of half blocks to modules, then pixels (4 a module), then jsQR. */
function decodeScreen(lines: readonly string[]): string | null {
  const drawn = lines.filter((l) => BLOCKS.test(l) || /^ {20,}$/.test(l))
  const grid: boolean[][] = []
  for (const line of drawn) {
    grid.push([...line].map((ch) => ch === '▀' || ch === '█'))
    grid.push([...line].map((ch) => ch === '▄' || ch === '█'))
  }
  const width = Math.max(...grid.map((r) => r.length)) + 8
  const height = grid.length + 8
  const scale = 4
  const data = new Uint8ClampedArray(width * scale * height * scale * 4).fill(255)
  grid.forEach((row, r) =>
    row.forEach((dark, c) => {
      if (!dark) return
      for (let y = 0; y < scale; y++)
        for (let x = 0; x < scale; x++) {
          const i = (((r + 4) * scale + y) * width * scale + (c + 4) * scale + x) * 4
          data[i] = data[i + 1] = data[i + 2] = 0
        }
    }),
  )
  return jsQR(data, width * scale, height * scale, {inversionAttempts: 'dontInvert'})?.data ?? null
}

describe('cast web pair draws its address as a QR code', () => {
  let h: TempHome
  let sock: string
  let browser: Browser | undefined
  let web: WebServer | undefined

  beforeAll(() => {
    h = makeHome()
    sock = path.join(h.dir, 'tmux-pair.sock')
  })

  afterAll(async () => {
    await browser?.close()
    await web?.stop()
    try {
      execFileSync('tmux', ['-S', sock, 'kill-server'], {stdio: 'ignore'})
    } catch {
      // Not started, or gone already.
    }
    h?.cleanup()
  })

  /** Run cast in a tmux pane of 160×60 (a terminal) and return its screen once it printed the code. */
  async function inTerminal(args: readonly string[], name: string): Promise<string[]> {
    const env = Object.entries(h.env).map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    const command = `env ${env.join(' ')} ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} ${args.join(' ')}; sleep 600`
    const tmux = (a: string[]): string => execFileSync('tmux', ['-S', sock, ...a], {encoding: 'utf8'})
    tmux(['new-session', '-d', '-s', name, '-x', '160', '-y', '60', command])
    for (let i = 0; i < 600; i++) {
      const screen = tmux(['capture-pane', '-p', '-t', name])
      if (/On the device, .*\n/.test(screen)) return screen.split('\n')
      await new Promise((r) => setTimeout(r, 100))
    }
    throw new Error(`cast web pair printed nothing in tmux: ${tmux(['capture-pane', '-p', '-t', name])}`)
  }

  it('on a terminal: the QR code decodes to the address printed under it, whose fragment is the code', async () => {
    const screen = await inTerminal(['web', 'pair', '--listen', '192.168.1.23'], 'tty')
    const url = /open (http:\/\/192\.168\.1\.23:4280\/pair#([2-9A-Z]{4}-[2-9A-Z]{4}))/.exec(screen.join('\n'))
    expect(url, screen.join('\n')).not.toBeNull()
    expect(screen.join('\n')).toContain(`Pairing code: ${url![2]}`)
    expect(decodeScreen(screen)).toBe(url![1])
    // --no-qr on the same terminal: the text alone.
    const plain = await inTerminal(['web', 'pair', '--listen', '192.168.1.23', '--no-qr'], 'noqr')
    expect(plain.some((l) => BLOCKS.test(l))).toBe(false)
    expect(plain.join('\n')).toMatch(/open http:\/\/192\.168\.1\.23:4280\/pair#/)
  })

  it('in a pipe: no QR code unless --qr; never with --json', async () => {
    const piped = await runCast(['web', 'pair', '--listen', '10.0.0.7', '--port', '5000'], {env: h.env})
    expect(piped.code).toBe(0)
    expect(piped.stdout).not.toMatch(BLOCKS)
    expect(piped.stdout).toMatch(/open http:\/\/10\.0\.0\.7:5000\/pair#[2-9A-Z]{4}-[2-9A-Z]{4} /)
    const forced = await runCast(['web', 'pair', '--listen', 'fd7a:115c::5', '--qr'], {env: h.env})
    const url = /open (http:\/\/\[fd7a:115c::5\]:4280\/pair#[\w-]+)/.exec(forced.stdout)![1]
    // eslint-disable-next-line no-control-regex
    expect(decodeScreen(forced.stdout.replace(/\u001B\[[\d;]*m/g, '').split('\n'))).toBe(url)
    const asJson = await runCast(['web', 'pair', '--json', '--qr'], {env: h.env})
    expect(Object.keys(JSON.parse(asJson.stdout))).toEqual(['schema', 'code', 'expires_at'])
    // A loopback address reaches no other device: no QR code, and one line says why.
    const loop = await runCast(['web', 'pair', '--listen', '127.0.0.1', '--qr'], {env: h.env})
    expect(loop.stdout).not.toMatch(BLOCKS)
    expect(loop.stdout).not.toMatch(/ADDR:PORT/)
    expect(loop.stdout).toMatch(/loopback address, which no other device can reach/)
  })

  it('the address fills the code in on the pairing page, leaves the address bar, and pairs', async () => {
    const pair = await runCast(['web', 'pair', '--listen', '192.0.2.9'], {env: h.env})
    const code = /pair#([\w-]+)/.exec(pair.stdout)![1]!
    web = await startWeb(h.env)
    browser = await launchChromium()
    const page = await (await browser.newContext()).newPage()
    await page.goto(`${web.base}/pair#${code}`)
    await page.waitForFunction(() => (globalThis as any).document.querySelector('#code').value !== '')
    expect(await page.inputValue('#code')).toBe(code)
    expect(new URL(page.url()).hash).toBe('')
    await page.fill('#name', 'phone')
    await page.click('button[type=submit]')
    await page.waitForSelector('#tally')
    const devices = JSON.parse((await runCast(['web', 'devices', '--json'], {env: h.env})).stdout)
    expect(JSON.stringify(devices)).toContain('"phone"')
  })
})
