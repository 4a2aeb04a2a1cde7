/**
 * ntfy: the page published in ntfy's JSON format to a recording server on loopback (topic,
 * title, message, the bearer token), Approve / Deny as `http` actions to one-use `cast web`
 * action URLs when cast web's address is HTTPS, none (and one line why) when it is not; and
 * `cast web` refuses an action URL over plain HTTP in one line, leaving the token unspent.
 */
import http from 'node:http'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {NtfyConfig} from '../../src/lib/home/config-shape.js'
import {ntfyActionsRefused, ntfyMessage, publishNtfy} from '../../src/lib/notify/ntfy.js'
import {grantActions, spendAction} from '../../src/lib/push/files.js'
import type {PagePayload} from '../../src/lib/push/payload.js'
import {makeHome, type TempHome} from '../helpers/cli.js'
import {startWeb, type WebServer} from '../web/helpers.js'

interface Got {
  readonly url: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: Record<string, unknown>
}

const PAGE: PagePayload = {
  actions: [
    {action: 'approve', title: 'Approve', token: 'a'.repeat(32)},
    {action: 'deny', title: 'Deny', token: 'd'.repeat(32)},
  ],
  badge: 1,
  body: 'Deploy\nApprove Bash?',
  sessions: ['claude_code:x'],
  tag: 'cast-abc',
  title: 'Claude Code is waiting for approval',
  url: '/#s=claude_code%3Ax',
  v: 1,
}

describe('ntfy', () => {
  let h: TempHome
  let server: http.Server
  let base = ''
  const got: Got[] = []

  beforeAll(async () => {
    h = makeHome()
    server = http.createServer((req, res) => {
      let text = ''
      req.on('data', (c) => (text += String(c)))
      req.on('end', () => {
        got.push({body: JSON.parse(text) as Record<string, unknown>, headers: req.headers, url: req.url ?? ''})
        res.writeHead(200, {'content-type': 'application/json'}).end('{"id":"x"}')
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
    base = `http://127.0.0.1:${(server.address() as {port: number}).port}`
  })

  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()))
    h?.cleanup()
  })

  it('publishes the page with Approve / Deny as http actions to cast web’s HTTPS action URLs', async () => {
    const c: NtfyConfig = {actionsUrl: 'https://cast.example.ts.net:8787/', server: base, token: 'tk_secret', topic: 'my-agents'}
    expect(ntfyActionsRefused(c)).toBeNull()
    await publishNtfy(ntfyMessage(PAGE, c), c)
    const m = got.at(-1)!
    expect(m.url).toBe('/')
    expect(m.headers['authorization']).toBe('Bearer tk_secret')
    expect(m.headers['content-type']).toBe('application/json')
    expect(m.body).toMatchObject({message: 'Deploy\nApprove Bash?', title: 'Claude Code is waiting for approval', topic: 'my-agents'})
    expect(m.body['actions']).toEqual([
      {action: 'http', clear: true, label: 'Approve', method: 'POST', url: `https://cast.example.ts.net:8787/a/${'a'.repeat(32)}`},
      {action: 'http', clear: true, label: 'Deny', method: 'POST', url: `https://cast.example.ts.net:8787/a/${'d'.repeat(32)}`},
    ])
    expect(m.body['click']).toBe('https://cast.example.ts.net:8787/#s=claude_code%3Ax')
  })

  it('sends no action over a plain-HTTP cast web address, and says why', async () => {
    const c: NtfyConfig = {actionsUrl: 'http://192.168.1.5:4280', server: base, token: null, topic: 'my-agents'}
    expect(ntfyActionsRefused(c)).toMatch(/^actions need cast web over HTTPS/)
    await publishNtfy(ntfyMessage(PAGE, c), c)
    const m = got.at(-1)!
    expect(m.body['actions']).toEqual([])
    expect(m.headers['authorization']).toBeUndefined()
    expect(JSON.stringify(m.body)).not.toContain('a'.repeat(32))
  })

  describe('cast web over plain HTTP', () => {
    let web: WebServer
    beforeAll(async () => {
      web = await startWeb(h.env)
    }, 60_000)
    afterAll(async () => web?.stop())

    it('refuses an action URL in one line and leaves the token unspent', async () => {
      const now = Date.now()
      const [token] = grantActions(
        h.castHome,
        [{ask: 'x', expires_at: now + 60_000, option: null, session: 'claude_code:x', verb: 'approve', via: 'ntfy'}],
        now,
      )
      const r = await fetch(`${web.base}/a/${token}`, {method: 'POST'})
      expect(r.status).toBe(403)
      const body = (await r.json()) as {error: {message: string; exit_code: number}}
      expect(body.error.message).toBe('Refused: action URLs work only over HTTPS (cast web --tls-cert/--tls-key, or behind a TLS proxy).')
      expect(body.error.exit_code).toBe(5)
      // A GET (a link preview) spends nothing either.
      expect((await fetch(`${web.base}/a/${token}`)).status).toBe(405)
      const left = spendAction(h.castHome, token!, 'ntfy', Date.now())
      expect(left).toMatchObject({session: 'claude_code:x', verb: 'approve'})
      // Spent once: gone.
      expect(spendAction(h.castHome, token!, 'ntfy', Date.now())).toBe('unknown')
    })
  })
})
