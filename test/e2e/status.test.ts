import fs from 'node:fs'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {claudeLines, claudeTranscriptPath, json, makeHome, runCast, startCast, type TempHome, writeFile} from '../helpers/cli.js'

let h: TempHome
beforeEach(() => {
  h = makeHome()
})
afterEach(() => h.cleanup())

const FILED = ['stashed', 'hidden', 'snoozed', 'dismissed', 'killed', 'folded']

describe('cast status', () => {
  it('before the first sync (no store): "? not yet synced", never "nothing needs you" while a session asks; no store is created', async () => {
    const cwd = '/src/app'
    const sid = 'aaaaaaaa-1111-4222-8333-000000000009'
    writeFile(
      claudeTranscriptPath(h.home, cwd, sid),
      claudeLines({at: new Date(Date.now() - 60_000), cwd, prompt: 'Pick a DB', question: 'Postgres or SQLite?', sessionId: sid}),
    )

    const r = await runCast(['status'], {env: h.env})
    const j = json(await runCast(['status', '--json'], {env: h.env}))
    const f = await runCast(['status', '--format', '{need}'], {env: h.env})

    expect(r).toMatchObject({code: 0, stdout: '? not yet synced\n'})
    expect(j).toMatchObject({line: '? not yet synced', synced: false})
    expect(f.stdout).toBe('? not yet synced\n')
    expect(fs.existsSync(path.join(h.castHome, 'cast.db'))).toBe(false)
    await runCast(['sessions'], {env: h.env})
    expect((await runCast(['status'], {env: h.env})).stdout).toBe('1 needs you\n')
    expect(json(await runCast(['status', '--json'], {env: h.env}))).toMatchObject({need: 1, synced: true})
  })

  it('counts what cast sessions shows as needing me, in one line and as JSON; --format fills the counts', async () => {
    const cwd = '/src/app'
    const at = new Date(Date.now() - 60_000)
    writeFile(
      claudeTranscriptPath(h.home, cwd, 'aaaaaaaa-1111-4222-8333-000000000001'),
      claudeLines({at, cwd, prompt: 'Pick a DB', question: 'Postgres or SQLite?', sessionId: 'aaaaaaaa-1111-4222-8333-000000000001'}),
    )
    writeFile(
      claudeTranscriptPath(h.home, cwd, 'aaaaaaaa-1111-4222-8333-000000000002'),
      claudeLines({at, cwd, prompt: 'Fix the test', sessionId: 'aaaaaaaa-1111-4222-8333-000000000002'}),
    )
    writeFile(
      claudeTranscriptPath(h.home, cwd, 'aaaaaaaa-1111-4222-8333-000000000003'),
      claudeLines({at, cwd, prompt: 'Stashed one', sessionId: 'aaaaaaaa-1111-4222-8333-000000000003'}),
    )
    writeFile(
      claudeTranscriptPath(h.home, cwd, 'aaaaaaaa-1111-4222-8333-000000000004'),
      claudeLines({at, cwd, prompt: 'Still going', sessionId: 'aaaaaaaa-1111-4222-8333-000000000004', settled: false}),
    )
    expect((await runCast(['stash', 'aaaaaaaa-1111-4222-8333-000000000003'], {env: h.env})).code).toBe(0)
    const listing = json(await runCast(['sessions', '--json'], {env: h.env}))
    const need = listing.sessions.filter(
      (s: {state: string; bucket: string}) => !FILED.includes(s.bucket) && (s.state === 'needs_input' || s.bucket === 'questions'),
    ).length
    expect(need).toBe(2)

    const r = await runCast(['status'], {env: h.env})
    const j = json(await runCast(['status', '--json'], {env: h.env}))
    const f = await runCast(['status', '--format', 'need={need} q={questions} w={working}'], {env: h.env})
    const bogus = await runCast(['status', '--format', 'need={need} {bogus}'], {env: h.env})

    expect(r.stdout).toBe('2 need you\n')
    expect(j).toMatchObject({line: '2 need you', need: 2, questions: 1, quiet: 0, working: 1})
    expect(f.stdout).toBe('need=2 q=1 w=1\n')
    expect(bogus.code).toBe(2)
    expect(bogus.stderr).toContain('{bogus}')
  })

  it('a bad flag goes to oclif (exit 2); --help works', async () => {
    expect((await runCast(['status', '--nope'], {env: h.env})).code).toBe(2)
    expect((await runCast(['status', '--help'], {env: h.env})).stdout).toContain('status-right')
  })
})

describe('the status file (status.json)', () => {
  const SID = 'aaaaaaaa-1111-4222-8333-0000000000a1'
  const T = Date.parse('2026-06-01T12:00:00.000Z')
  const at = (ms: number): Record<string, string> => ({...h.env, CAST_NOW: new Date(ms).toISOString()})

  it('a cached line gives way to a write by another command at once', async () => {
    const cwd = '/src/app'
    writeFile(
      claudeTranscriptPath(h.home, cwd, SID),
      claudeLines({at: new Date(Date.now() - 60_000), cwd, prompt: 'Pick a DB', question: 'Postgres or SQLite?', sessionId: SID}),
    )
    await runCast(['sessions', '--json'], {env: h.env})
    expect((await runCast(['status'], {env: h.env})).stdout).toBe('1 needs you\n')
    expect(fs.existsSync(path.join(h.castHome, 'status.json'))).toBe(true)
    // Answered from the file now; a stash by another process must still show on the next call.
    expect((await runCast(['status'], {env: h.env})).stdout).toBe('1 needs you\n')
    expect((await runCast(['stash', SID], {env: h.env})).code).toBe(0)
    expect((await runCast(['status'], {env: h.env})).stdout).toBe('nothing needs you\n')
  })

  it('a working session that goes quiet is counted when its quiet time comes, before the file would expire anyway', async () => {
    const cwd = '/src/app'
    // Last output 9.5 minutes before T: quiet (10 minutes of silence) 30 s after T.
    writeFile(
      claudeTranscriptPath(h.home, cwd, SID),
      claudeLines({at: new Date(T - 570_000), cwd, prompt: 'Still going', sessionId: SID, settled: false}),
    )
    await runCast(['sessions', '--json'], {env: at(T)})
    expect(json(await runCast(['status', '--json'], {env: at(T)}))).toMatchObject({quiet: 0, working: 1})
    // 45 s later: inside the file's longest life (60 s), past the quiet time.
    expect(json(await runCast(['status', '--json'], {env: at(T + 45_000)}))).toMatchObject({quiet: 1, working: 1})
  })

  it('counts for the identity asking: another CAST_USER is not answered from the file', async () => {
    const cwd = '/src/app'
    writeFile(
      claudeTranscriptPath(h.home, cwd, SID),
      claudeLines({at: new Date(Date.now() - 60_000), cwd, prompt: 'Pick a DB', question: 'Postgres or SQLite?', sessionId: SID}),
    )
    await runCast(['sessions', '--json'], {env: h.env})
    expect((await runCast(['own', SID, 'me@example.com'], {env: h.env})).code).toBe(0)
    expect((await runCast(['status'], {env: h.env})).stdout).toBe('1 needs you\n')
    expect((await runCast(['status'], {env: {...h.env, CAST_USER: 'other@example.com'}})).stdout).toBe('nothing needs you\n')
  })

  it('--path names the file cast daemon keeps the line in', async () => {
    expect((await runCast(['status', '--path'], {env: h.env})).stdout).toBe(path.join(h.castHome, 'status.line') + '\n')
  })
})

describe('the line cast daemon keeps (status.line)', () => {
  const SID = 'aaaaaaaa-1111-4222-8333-0000000000b1'
  const lineFile = (): string => path.join(h.castHome, 'status.line')
  const readLine = (): string | null => (fs.existsSync(lineFile()) ? fs.readFileSync(lineFile(), 'utf8') : null)
  async function until(want: (l: string | null) => boolean): Promise<string | null> {
    let l = readLine()
    for (let i = 0; i < 80 && !want(l); i++) {
      await new Promise((r) => setTimeout(r, 250))
      l = readLine()
    }

    return l
  }

  it('holds what cast status says, follows a change made by another command, and says so when the daemon stops', async () => {
    const cwd = '/src/app'
    writeFile(
      claudeTranscriptPath(h.home, cwd, SID),
      claudeLines({at: new Date(Date.now() - 60_000), cwd, prompt: 'Pick a DB', question: 'Postgres or SQLite?', sessionId: SID}),
    )
    const d = startCast(['daemon'], h.env)
    const first = await until((l) => l === '1 needs you\n')
    const status = (await runCast(['status'], {env: h.env})).stdout
    expect((await runCast(['stash', SID], {env: h.env})).code).toBe(0)
    const after = await until((l) => l === 'nothing needs you\n')
    expect(await d.stop()).toBe(0)
    const stopped = readLine()

    expect(first).toBe('1 needs you\n')
    expect(status).toBe(first)
    expect(after).toBe('nothing needs you\n')
    expect(stopped).toBe('? cast daemon stopped\n')
  })
})
