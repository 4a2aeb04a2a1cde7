/**
 * `cast queued`: what `cast send --queue` holds, and what it could not deliver, listed and
 * withdrawn as a user would. The held files are written by the function `cast send --queue`
 * uses (src/lib/agents/send-queue.ts queueMessage), for a real session of a real store.
 */
import fs from 'node:fs'
import path from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {queueMessage} from '../../src/lib/agents/send-queue.js'
import {claudeLines, claudeTranscriptPath, json, makeHome, runCast, type TempHome, writeFile} from '../helpers/cli.js'

const SID = '7a1e0000-0000-4000-8000-00000000a001'

describe('cast queued', () => {
  let h: TempHome
  let id: string

  beforeAll(async () => {
    h = makeHome()
    const cwd = path.join(h.dir, 'proj')
    fs.mkdirSync(cwd, {recursive: true})
    writeFile(claudeTranscriptPath(h.home, cwd, SID), claudeLines({at: new Date(), cwd, prompt: 'Ship it', sessionId: SID}))
    const listed = json(await runCast(['sessions', '--json', '--all'], {env: h.env}))
    id = (listed.sessions as {id: string; native_id: string}[]).find((s) => s.native_id === SID)!.id
  }, 60_000)

  afterAll(() => h?.cleanup())

  it('says nothing is held on a fresh home', async () => {
    const r = await runCast(['queued'], {env: h.env})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('Nothing held')
    expect(json(await runCast(['queued', '--json'], {env: h.env}))).toMatchObject({failed: [], held: [], unreadable: 0})
  })

  it('lists held messages oldest first with their session, and never prints their escapes raw', async () => {
    const first = queueMessage(h.env, id, 'then update the changelog', 'me@example.com', Date.now() - 60_000)
    const hostile = queueMessage(h.env, id, '\u001b]0;pwned\u0007\u001b[2J clear \u202e', 'me@example.com', Date.now())
    const r = await runCast(['queued'], {env: h.env})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('2 held')
    expect(r.stdout.indexOf(first.id)).toBeLessThan(r.stdout.indexOf(hostile.id))
    expect(r.stdout).toContain('Ship it')
    for (const raw of ['\u001b', '\u0007', '\u202e']) expect(r.stdout).not.toContain(raw)
    const j = json(await runCast(['queued', '--json'], {env: h.env}))
    expect(j.held.map((e: {id: string}) => e.id)).toEqual([first.id, hostile.id])
    expect(j.held[1]).toMatchObject({by: 'me@example.com', message: hostile.message, session: id, title: 'Ship it'})
  })

  it('withdraws a held message by its id, and says so when none waits', async () => {
    const before = json(await runCast(['queued', '--json'], {env: h.env})).held as {id: string}[]
    const r = await runCast(['queued', '--drop', before[0]!.id, '--json'], {env: h.env})
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).dropped).toBe(before[0]!.id)
    expect(json(r).held.map((e: {id: string}) => e.id)).toEqual([before[1]!.id])
    const again = await runCast(['queued', '--drop', before[0]!.id], {env: h.env})
    expect(again.code).toBe(3)
    expect(again.stderr.trim().split('\n')[0]).toContain('No queued message')
    const bogus = await runCast(['queued', '--drop', '../../cast.db'], {env: h.env})
    expect(bogus.code).toBe(3)
    expect(fs.existsSync(path.join(h.castHome, 'cast.db'))).toBe(true)
  })

  it('lists what could not be delivered with why, and counts a file that is not a message', async () => {
    const dir = path.join(h.castHome, 'queued')
    fs.mkdirSync(path.join(dir, 'failed'), {recursive: true})
    const entry = {at: new Date().toISOString(), by: 'me@example.com', id: 'q0000beef', message: 'late', session_id: id}
    fs.writeFileSync(
      path.join(dir, 'failed', '000000000000001-q0000beef.json'),
      JSON.stringify({...entry, error: 'The agent is not at its prompt.'}),
    )
    fs.writeFileSync(path.join(dir, '000000000000002-q0000dead.json'), 'not json')
    const r = await runCast(['queued'], {env: h.env})
    expect(r.stdout).toContain('1 not delivered')
    expect(r.stdout).toContain('The agent is not at its prompt.')
    expect(r.stdout).toContain('1 file(s) in the queue folder are not queued messages')
    const j = json(await runCast(['queued', '--json'], {env: h.env}))
    expect(j.failed).toEqual([expect.objectContaining({error: 'The agent is not at its prompt.', id: 'q0000beef'})])
    expect(j.unreadable).toBe(1)
  })
})
