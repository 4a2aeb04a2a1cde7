import fs from 'node:fs'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {claudeLines, claudeTranscriptPath, json, makeHome, runCast, type TempHome, writeFile} from '../helpers/cli.js'

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
    const f = await runCast(['status', '--format', 'need={need} q={questions} w={working} {bogus}'], {env: h.env})

    expect(r.stdout).toBe('2 need you\n')
    expect(j).toMatchObject({line: '2 need you', need: 2, questions: 1, quiet: 0, working: 1})
    expect(f.stdout).toBe('need=2 q=1 w=1 {bogus}\n')
  })

  it('a bad flag goes to oclif (exit 2); --help works', async () => {
    expect((await runCast(['status', '--nope'], {env: h.env})).code).toBe(2)
    expect((await runCast(['status', '--help'], {env: h.env})).stdout).toContain('status-right')
  })
})
