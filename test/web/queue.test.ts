/**
 * `cast send --queue` over the fake Claude Code in a private tmux, with a cast daemon delivering:
 * a message queued while a permission prompt holds the agent's terminal is not typed into the
 * dialog; it goes in as the next turn once the prompt is answered and the turn ends. Queued at a
 * prompt whose turn has ended, it goes in at once. From the page, Ctrl+Enter in the composer
 * queues a reply behind an open question (Claude Code's menu, answered with cast choose).
 */
import fs from 'node:fs'
import path from 'node:path'

import type {Browser} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {fakeInWindow, makeProject, startTmux, type TmuxServer, userTexts, waitFor, writeFakeConfig} from '../fakes/agents.js'
import {json, killStarted, makeHome, runCast, startCast, type TempHome, waitForWatcher} from '../helpers/cli.js'
import {inboxPage, launchChromium, signIn, startWeb, type WebServer} from './helpers.js'

const A = '5e1f0000-0000-4000-8000-00000000f001'
const B = '5e1f0000-0000-4000-8000-00000000f002'

describe('cast send --queue', () => {
  let h: TempHome
  let tmux: TmuxServer
  let env: Record<string, string>
  let proj: string
  let daemon: ReturnType<typeof startCast>
  let daemonLog = ''
  let web: WebServer | undefined
  let browser: Browser | undefined

  beforeAll(async () => {
    h = makeHome()
    proj = makeProject(h.dir)
    writeFakeConfig(h.castHome)
    tmux = startTmux({...h.env, FAKE_DELAY_MS: '100'})
    env = {...h.env, ...tmux.env}
    daemon = startCast(['daemon'], env)
    daemon.child.stderr!.on('data', (c) => (daemonLog += String(c)))
    await waitForWatcher(h.castHome, 60_000)
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await web?.stop()
    await daemon?.stop()
    killStarted()
    tmux?.kill()
    h?.cleanup()
  }, 120_000)

  const row = async (native: string): Promise<any> =>
    (json(await runCast(['sessions', '--all', '--json'], {env})).sessions as any[]).find((s) => s.native_id === native)
  const waitState = (native: string, sr: string) =>
    waitFor(async () => {
      const r = await row(native)
      return r && `${r.state}:${r.reason}` === sr ? r : null
    }, 60_000)
  const held = () => fs.readdirSync(path.join(h.castHome, 'queued')).filter((f) => f.endsWith('.json'))

  it('holds a message behind an open permission prompt, and sends it as the next turn once the turn ends', async () => {
    fakeInWindow(tmux, {cwd: proj, prompt: 'tool: make build', sessionId: A})
    const r = await waitState(A, 'needs_input:approval')
    // A plain send is refused: it would answer the dialog.
    const plain = await runCast(['send', r.id, '--', 'too early'], {env})
    expect(plain.code).toBe(5)
    const q = await runCast(['send', '--queue', '--json', r.id, '--', 'then update the changelog'], {env})
    expect(q.code, q.stderr).toBe(0)
    expect(json(q)).toMatchObject({delivering: true, queued: true, session: {id: r.id}})
    expect(held()).toHaveLength(1)
    // Held: the dialog is still open, the message not typed.
    expect(userTexts(h.home, proj, A)).not.toContain('then update the changelog')
    expect((await row(A)).reason).toBe('approval')
    const approved = await runCast(['approve', r.id], {env})
    expect(approved.code, approved.stderr).toBe(0)
    await waitFor(() => userTexts(h.home, proj, A).includes('then update the changelog') || null, 60_000).catch(async (error: Error) => {
      const failed = path.join(h.castHome, 'queued', 'failed')
      const why = fs.existsSync(failed) ? fs.readdirSync(failed).map((f) => fs.readFileSync(path.join(failed, f), 'utf8')) : []
      throw new Error(`${error.message}; now ${JSON.stringify(await row(A))}; held ${held()}; failed ${why}; daemon ${daemonLog}`)
    })
    const texts = userTexts(h.home, proj, A)
    expect(texts.indexOf('[answer] ran make build')).toBeLessThan(texts.indexOf('then update the changelog'))
    expect(texts).not.toContain('too early')
    expect(held()).toHaveLength(0)
    // The human line says what happens.
    await waitState(A, 'needs_input:settled')
    const now = await runCast(['send', '--queue', r.id, '--', 'and the release notes'], {env})
    expect(now.code, now.stderr).toBe(0)
    expect(now.stdout).toMatch(/^Its turn had ended: sent to/)
    await waitFor(() => userTexts(h.home, proj, A).includes('and the release notes') || null, 60_000)
    // --queue with --if is a usage error.
    expect((await runCast(['send', '--queue', r.id, '--if', 'working', '--', 'x'], {env})).code).toBe(2)
  })

  it('Ctrl+Enter in the composer queues a reply behind an open question', async () => {
    // B asks a question in Claude Code's menu: its turn has not ended until it is answered.
    fakeInWindow(tmux, {cwd: proj, env: {FAKE_QUESTION_MENU: '1'}, prompt: 'ask which colour', sessionId: B})
    const b = await waitState(B, 'needs_input:question')
    web = await startWeb(env)
    browser = await launchChromium()
    const page = await inboxPage(await signIn(browser, web), web)
    await page.click(`.card[data-id="${b.id}"]`)
    if (!(await page.isVisible('.answer-title'))) await page.click(`.card[data-id="${b.id}"]`)
    await page.fill('.composer', 'after that, run the tests')
    await page.keyboard.press('Control+Enter')
    await page
      .waitForFunction(() => /^Queued for /.test((globalThis as any).document.querySelector('#status')?.textContent ?? ''), null, {
        timeout: 60_000,
      })
      .catch(async (error: Error) => {
        // Say what the page showed instead, and what the daemon logged.
        const status = await page.textContent('#status').catch(() => null)
        throw new Error(`${error.message}; the page's status: ${JSON.stringify(status)}; held ${held()}; daemon ${daemonLog}`)
      })
    expect(held()).toHaveLength(1)
    expect(userTexts(h.home, proj, B)).toEqual(['ask which colour'])
    // The question is answered (its first option); the turn ends; the daemon types the reply in.
    const chose = await runCast(['choose', b.id, '1'], {env})
    expect(chose.code, chose.stderr).toBe(0)
    await waitFor(() => userTexts(h.home, proj, B).includes('after that, run the tests') || null, 120_000)
    const texts = userTexts(h.home, proj, B)
    expect(texts[0]).toBe('ask which colour')
    expect(texts.at(-1)).toBe('after that, run the tests')
    expect(texts.length).toBe(3)
    expect(held()).toHaveLength(0)
  }, 240_000)
})
