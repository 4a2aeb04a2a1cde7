/**
 * Credentials that ended, and clients that misbehave, over real HTTP: (2) a paired device's open
 * event stream is closed by the server after `cast web devices --revoke`, before any new title
 * reaches it; (6) logout closes the session's stream and its cookie and key read nothing after,
 * an unused session ends after --idle and a used one after --lifetime; (8) twenty stream clients
 * that never read leave the server's memory bounded, each dropped with one line; (9) ten wrong
 * pairing codes from one address do not lock out the owner's real code.
 */
import {type ChildProcess} from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import net from 'node:net'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {claudeLines, claudeTranscriptPath, json, makeHome, runCast, type TempHome, writeFile} from '../helpers/cli.js'
import {waitFor} from '../fakes/agents.js'
import {apiSession, type Credential, credential, startWeb, type WebServer} from './helpers.js'

interface Reply {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

function request(
  base: string,
  p: string,
  o: {method?: string; headers?: Record<string, string>; body?: string; from?: string} = {},
): Promise<Reply> {
  const u = new URL(base)
  return new Promise((resolve, reject) => {
    const req = http.request(
      {headers: o.headers, host: u.hostname, localAddress: o.from, method: o.method ?? 'GET', path: p, port: u.port},
      (res) => {
        let body = ''
        res.on('data', (c) => (body += String(c)))
        res.on('end', () => resolve({body, headers: res.headers, status: res.statusCode!}))
      },
    )
    req.on('error', reject)
    req.end(o.body)
  })
}

/** An open /api/events stream: what it received, and whether the server ended it. */
interface Stream {
  text: string
  status: number
  closed: boolean
  stop(): void
}

function openStream(base: string, headers: Record<string, string>): Promise<Stream> {
  const u = new URL(base)
  return new Promise((resolve, reject) => {
    const s: Stream = {closed: false, status: 0, stop: () => req.destroy(), text: ''}
    const req = http.get({headers, host: u.hostname, path: '/api/events', port: u.port}, (res) => {
      s.status = res.statusCode!
      res.on('data', (c) => (s.text += String(c)))
      res.on('close', () => (s.closed = true))
      res.on('error', () => (s.closed = true))
      resolve(s)
    })
    req.on('error', (e) => (s.status ? (s.closed = true) : reject(e)))
  })
}

const snapshot = (s: Stream) => s.text.includes('event: snapshot') || null

let n = 0
function addSession(h: TempHome, title: string): string {
  const id = `5e1f0000-0000-4000-8000-${String(++n).padStart(12, '0')}`
  const cwd = '/home/me/src/shop'
  writeFile(
    claudeTranscriptPath(h.home, cwd, id),
    claudeLines({at: new Date(Date.now() - 30_000), cwd, prompt: title, sessionId: id, settled: true}),
  )
  return id
}

async function pairDevice(h: TempHome, web: WebServer): Promise<{cred: Credential; id: string}> {
  const code = json(await runCast(['web', 'pair', '--json'], {env: h.env})).code as string
  const r = await request(web.base, '/api/pair', {
    body: JSON.stringify({code, name: 'phone'}),
    headers: {'content-type': 'application/json', host: new URL(web.base).host, origin: web.base},
    method: 'POST',
  })
  expect(r.status, r.body).toBe(200)
  const cookie = String(r.headers['set-cookie']).split(';')[0]!
  const got = JSON.parse(r.body) as {key?: string; device: {id: string}}
  return {cred: credential(web, cookie, got.key ?? ''), id: got.device.id}
}

/** Resident memory of a process, in bytes (VmRSS). */
function rss(child: ChildProcess): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))
  return Number(m![1]) * 1024
}

describe('cast web: ended credentials and misbehaving clients', () => {
  let h: TempHome
  let web: WebServer
  let mine: Credential

  beforeAll(async () => {
    h = makeHome()
    addSession(h, 'Migrate the orders table')
    web = await startWeb(h.env)
    mine = await apiSession(web)
  }, 120_000)

  afterAll(async () => {
    await web?.stop()
    h?.cleanup()
  })

  it('a revoked device’s open stream is closed by the server before a new title reaches it', async () => {
    const {cred, id} = await pairDevice(h, web)
    const device = await openStream(web.base, cred.headers)
    const control = await openStream(web.base, mine.headers)
    expect(device.status).toBe(200)
    await waitFor(() => snapshot(device) && snapshot(control), 60_000)
    const revoked = await runCast(['web', 'devices', '--revoke', id], {env: h.env})
    expect(revoked.code, revoked.stderr).toBe(0)
    const seenAtRevoke = device.text.length
    const NEW = 'Quarterly layoffs list for the board'
    addSession(h, NEW)
    await waitFor(
      () => device.closed,
      30_000,
      () => `still open, ${device.text.length} bytes`,
    )
    // The title was broadcast (the session that stayed signed in got it), and never to the revoked device.
    await waitFor(() => control.text.includes(NEW), 60_000)
    expect(device.text).not.toContain(NEW)
    expect(device.text.length - seenAtRevoke).toBeLessThan(200)
    expect((await request(web.base, '/api/listing', {headers: cred.headers})).status).toBe(401)
    expect((await openStream(web.base, cred.headers)).status).toBe(401)
    expect(cred.cookie).toMatch(new RegExp(`^cast_device_${new URL(web.base).port}=`))
    control.stop()
  }, 120_000)

  it('logout closes the session’s stream, and its cookie and key read nothing after', async () => {
    const s = await openStream(web.base, mine.headers)
    await waitFor(() => snapshot(s), 60_000)
    const out = await request(web.base, '/api/logout', {
      body: '{}',
      headers: {...mine.headers, 'content-type': 'application/json', origin: web.base},
      method: 'POST',
    })
    expect(out.status).toBe(200)
    await waitFor(() => s.closed, 30_000)
    const after = await request(web.base, '/api/listing', {headers: mine.headers})
    expect(after.status).toBe(401)
    expect(after.body).not.toContain('orders table')
    expect((await openStream(web.base, mine.headers)).status).toBe(401)
  }, 60_000)

  it('an unused session ends after --idle (its stream closes); a used one after --lifetime', async () => {
    const idle = await startWeb(h.env, ['--idle', '5s'])
    try {
      const cred = await apiSession(idle)
      const s = await openStream(idle.base, cred.headers)
      await waitFor(() => snapshot(s), 60_000)
      // No request after the stream's: the server ends the session and its stream.
      await waitFor(() => s.closed, 60_000)
      expect((await request(idle.base, '/api/listing', {headers: cred.headers})).status).toBe(401)
    } finally {
      await idle.stop()
    }

    const short = await startWeb(h.env, ['--idle', '1h', '--lifetime', '4s'])
    try {
      const cred = await apiSession(short)
      const signedIn = Date.now()
      // Used without pause: it ends all the same, and not before its lifetime.
      const ended = await waitFor(
        async () => (await request(short.base, '/api/listing', {headers: cred.headers})).status === 401 && Date.now(),
        60_000,
      )
      expect(ended - signedIn).toBeGreaterThanOrEqual(4000)
    } finally {
      await short.stop()
    }
  }, 180_000)

  it('twenty stream clients that never read: memory stays bounded, each is dropped with one line', async () => {
    const big = makeHome()
    try {
      // A listing of some weight (about half a megabyte), so what a silent client is sent piles up.
      for (let i = 0; i < 400; i++) addSession(big, `Task ${i}: ${'refactor the billing pipeline '.repeat(6)}`)
      const slowWeb = await startWeb({...big.env, CAST_WEB_STALL_MS: '4000'})
      try {
        const cred = await apiSession(slowWeb)
        const first = await request(slowWeb.base, '/api/listing', {headers: cred.headers})
        expect(first.status).toBe(200)
        expect(first.body.length).toBeGreaterThan(300_000)
        const target = (JSON.parse(first.body).sessions as {id: string}[])[0]!.id
        const base = rss(slowWeb.child)
        const u = new URL(slowWeb.base)
        const head = `GET /api/events HTTP/1.1\r\nHost: ${u.host}\r\nCookie: ${cred.cookie}\r\nx-cast-key: ${cred.key}\r\n\r\n`
        const silent = await Promise.all(
          Array.from(
            {length: 20},
            () =>
              new Promise<net.Socket>((resolve) => {
                const sock = net.connect({host: u.hostname, port: Number(u.port)}, () => {
                  sock.write(head)
                  // Never read: the kernel's buffers fill, then the server's.
                  sock.pause()
                  resolve(sock)
                })
                sock.on('error', () => undefined)
              }),
          ),
        )
        let peak = base
        const dropped = () => (slowWeb.stderr().match(/dropped a live-stream client that stopped reading/g) ?? []).length
        // Forty changes, each a listing sent to every open stream.
        for (let i = 0; i < 40; i++) {
          const r = await request(slowWeb.base, '/api/verb', {
            body: JSON.stringify({session: target, verb: i % 2 === 0 ? 'pin' : 'unpin'}),
            headers: {...cred.headers, 'content-type': 'application/json', origin: slowWeb.base},
            method: 'POST',
          })
          expect(r.status, r.body).toBe(200)
          peak = Math.max(peak, rss(slowWeb.child))
        }

        await waitFor(
          () => {
            peak = Math.max(peak, rss(slowWeb.child))
            return dropped() >= 20
          },
          90_000,
          () => `${dropped()} dropped: ${slowWeb.stderr()}`,
        )
        // One line per client, none twice; each socket was ended by the server.
        expect(dropped()).toBe(20)
        await waitFor(() => silent.every((s) => s.readableEnded || s.destroyed || s.closed), 30_000).catch(() => null)
        // What twenty silent clients could cost: each at most one listing and a megabyte queued.
        expect(peak - base, `RSS ${base} → peak ${peak}`).toBeLessThan(100 * 1024 * 1024)
        console.log(`slow clients: RSS ${Math.round(base / 1e6)} MB → peak ${Math.round(peak / 1e6)} MB, ${dropped()} dropped`)
        for (const s of silent) s.destroy()
        // The server still serves a reading client.
        const s = await openStream(slowWeb.base, cred.headers)
        await waitFor(() => snapshot(s), 60_000)
        s.stop()
        expect(slowWeb.child.exitCode).toBeNull()
      } finally {
        await slowWeb.stop()
      }
    } finally {
      big.cleanup()
    }
  }, 300_000)

  it('ten wrong pairing codes from one address do not lock out the owner’s real code', async () => {
    const code = json(await runCast(['web', 'pair', '--json'], {env: h.env})).code as string
    const host = new URL(web.base).host
    const trade = (from: string, c: string) =>
      request(web.base, '/api/pair', {
        body: JSON.stringify({code: c, name: 'phone'}),
        from,
        headers: {'content-type': 'application/json', host, origin: web.base},
        method: 'POST',
      })
    // A stranger guesses: ten wrong codes are refused as wrong, then the address is refused outright.
    const stranger: number[] = []
    for (let i = 0; i < 12; i++) stranger.push((await trade('127.0.0.2', `ZZZZ-ZZZ${'ABCDEFGHJKMN'[i]}`)).status)
    expect(stranger.slice(0, 10)).toEqual(Array(10).fill(401))
    expect(stranger.slice(10)).toEqual([429, 429])
    // The same wrong code from several addresses: refused after three tries.
    const same: number[] = []
    for (const from of ['127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6']) same.push((await trade(from, 'YYYY-YYYY')).status)
    expect(same).toEqual([401, 401, 401, 429])
    // The owner's device, from its own address, with the real code: paired.
    const owner = await trade('127.0.0.7', code)
    expect(owner.status, owner.body).toBe(200)
    expect(JSON.parse(owner.body).device.name).toBe('phone')
  }, 60_000)
})
