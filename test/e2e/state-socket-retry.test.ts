/**
 * `cast state`'s side of the daemon's socket (src/lib/state/state-socket.ts) against a socket the
 * test serves where the daemon listens: a daemon that stops after declaring but before replying
 * (the caller answers itself under the same request id, and the declaration is made once,
 * src/lib/state/state-declare.ts), a socket in a folder others can reach (never connected to), and
 * a reply it does not understand (another version, garbage): each time the caller declares itself.
 */
import fs from 'node:fs'
import net from 'node:net'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {Store} from '../../src/core/store/store.js'
import {parseStateArgs} from '../../src/lib/state/state-args.js'
import {declare, findOwn} from '../../src/lib/state/state-declare.js'
import {type StateRequest, socketDir, socketPath} from '../../src/lib/state/state-socket.js'
import {claudeLines, claudeTranscriptPath, json, makeHome, runCast, type TempHome, writeFile} from '../helpers/cli.js'

const SID = 'aaaaaaaa-1111-4222-8333-0000000000a7'
let h: TempHome
let server: net.Server
beforeEach(() => {
  h = makeHome()
  writeFile(
    claudeTranscriptPath(h.home, '/src/app', SID),
    claudeLines({at: new Date(Date.now() - 60_000), cwd: '/src/app', prompt: 'Fix it', sessionId: SID}),
  )
})
afterEach(async () => {
  await new Promise((r) => (server?.listening ? server.close(r) : r(null)))
  h.cleanup()
})

describe('cast state when the daemon declared but never replied', () => {
  it("prints the declaration and exits 0, declared once (the daemon's, not a second one)", async () => {
    await runCast(['sessions', '--json'], {env: h.env})
    const earlier = Date.now() - 30_000
    const requests: StateRequest[] = []
    fs.mkdirSync(socketDir(h.castHome), {mode: 0o700})
    server = net.createServer((s) => {
      let data = ''
      s.on('data', (c) => {
        data += String(c)
        if (!data.includes('\n')) return
        const r = JSON.parse(data) as StateRequest
        requests.push(r)
        const store = new Store(h.castHome)
        const caller = {device: r.device, ppid: 1, requestId: r.id, vars: r.vars}
        const args = parseStateArgs(r.argv)!
        declare(store, findOwn(store, args.session, caller, true)!, args, caller, earlier)
        store.close()
        s.destroy()
      })
    })
    await new Promise<void>((r) => server.listen(socketPath(h.castHome), r))

    const said = await runCast(['state', '--session', SID, 'Once only'], {env: h.env})

    expect(requests).toHaveLength(1)
    expect(said).toMatchObject({code: 0, stderr: ''})
    expect(said.stdout).toMatch(/^\w{7}: working — Once only {2}\(now \w+:\w+; found via --session\)\n$/)
    const line = json(await runCast(['explain', SID, '--json'], {env: h.env})).session.state_line
    expect(line).toMatchObject({text: 'Once only'})
    expect(Date.parse(line.at)).toBe(earlier)
  }, 60_000)

  it('never connects to a socket in a folder others can reach, and declares itself', async () => {
    await runCast(['sessions', '--json'], {env: h.env})
    fs.mkdirSync(socketDir(h.castHome), {mode: 0o700})
    let connections = 0
    server = net.createServer((s) => {
      connections++
      s.destroy()
    })
    await new Promise<void>((r) => server.listen(socketPath(h.castHome), r))
    fs.chmodSync(socketDir(h.castHome), 0o755)

    const said = await runCast(['state', '--session', SID, 'Not there'], {env: h.env})

    expect(said).toMatchObject({
      code: 0,
      stderr: `cast: ${socketDir(h.castHome)} is reachable by other users (mode 755), not cast daemon's socket: not connected to\n`,
    })
    expect(connections).toBe(0)
    expect(json(await runCast(['explain', SID, '--json'], {env: h.env})).session.state_line).toMatchObject({text: 'Not there'})
  }, 60_000)

  it('ignores a reply it does not understand (another version, garbage) and declares itself', async () => {
    await runCast(['sessions', '--json'], {env: h.env})
    fs.mkdirSync(socketDir(h.castHome), {mode: 0o700})
    const replies = [
      (r: StateRequest) => JSON.stringify({code: 0, id: r.id, ok: true, stderr: '', stdout: 'from an old daemon\n', v: '0/0.0.1'}) + '\n',
      () => 'not json at all\n',
    ]
    let n = 0
    server = net.createServer((s) => {
      s.once('data', (c) => s.end(replies[n++]!(JSON.parse(String(c)) as StateRequest)))
    })
    await new Promise<void>((r) => server.listen(socketPath(h.castHome), r))

    for (const text of ['Old daemon', 'Garbage']) {
      const said = await runCast(['state', '--session', SID, text], {env: h.env})
      expect(said).toMatchObject({code: 0, stderr: ''})
      expect(said.stdout).toMatch(new RegExp(`^\\w{7}: working — ${text} {2}\\(now \\w+:\\w+; found via --session\\)\\n$`))
      expect(json(await runCast(['explain', SID, '--json'], {env: h.env})).session.state_line).toMatchObject({text})
    }

    expect(n).toBe(2)
  }, 60_000)
})
