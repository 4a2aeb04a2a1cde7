/**
 * A kept demo whose stand-in agent processes ended: `cast sessions` and the page (Debian's
 * Chromium) say why its live sessions now read dead, instead of contradicting the tour with
 * nothing said.
 */
import type {Browser} from 'playwright-core'
import {afterAll, describe, expect, it} from 'vitest'
import {json, makeHome, runCast, type TempHome} from '../helpers/cli.js'
import {inboxPage, launchChromium, signIn, startWeb, type WebServer} from './helpers.js'

let h: TempHome | undefined
let web: WebServer | undefined
let browser: Browser | undefined
afterAll(async () => {
  await browser?.close()
  await web?.stop()
  h?.cleanup()
})

describe('cast demo --keep, later', () => {
  it('says nothing while the stand-ins run; once they are killed, one line says its live sessions now read dead', async () => {
    h = makeHome()
    const r = await runCast(['demo', '--keep'], {env: {...h.env, TMPDIR: h.dir}, timeout: 120_000})
    expect(r.code).toBe(0)
    const exp = /export HOME=(\S+) CAST_HOME=(\S+)/.exec(r.stdout)
    const pids = /pids (\d+) and (\d+)/.exec(r.stdout)
    expect(exp).not.toBeNull()
    expect(pids).not.toBeNull()
    const env = {...h.env, CAST_HOME: exp![2]!.replace(/'/g, ''), HOME: exp![1]!.replace(/'/g, '')}

    const before = await runCast(['sessions'], {env})
    expect(before.code).toBe(0)
    expect(before.stdout).not.toContain('stand-in')
    const working = (json(await runCast(['sessions', '--json'], {env})) as {sessions: {state: string}[]}).sessions
    expect(working.filter((s) => s.state === 'working').length).toBeGreaterThan(0)

    web = await startWeb(env)
    browser = await launchChromium()
    const context = await signIn(browser, web)
    const first = await inboxPage(context, web)
    expect(await first.$('#notice')).toBeNull()
    await first.close()

    // Killed as the tour says a user may (kill PID PID).
    for (const p of pids!.slice(1)) process.kill(Number(p), 'SIGKILL')
    const after = await runCast(['sessions'], {env})
    expect(after.code).toBe(0)
    expect(after.stdout).toContain("This kept demo's two stand-in agent processes have ended (they were stopped)")
    expect(after.stdout).toContain('"cast demo --keep" makes a fresh one')

    // The page: a new load once the server's listing is rebuilt (it keeps one for up to 10 s).
    const deadline = Date.now() + 60_000
    let notice: string | null = null
    while (notice === null && Date.now() < deadline) {
      const page = await inboxPage(context, web)
      notice = (await page.$('#notice')) ? await page.textContent('#notice') : null
      await page.close()
      if (notice === null) await new Promise((r) => setTimeout(r, 1000))
    }
    expect(notice).toContain('stand-in agent processes have ended')
  }, 240_000)
})
