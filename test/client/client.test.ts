/**
 * The typed library (`import {openInbox} from 'cast-inbox'`, package.json exports, built dist):
 * the CLI's JSON shapes, one CastError with the exit code's name, no oclif loaded, and watch
 * resumable by seq across a daemon restart with nothing lost and nothing twice.
 */
import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {makeProject, waitFor} from '../fakes/agents.js'
import {
  claudeLines,
  claudeTranscriptPath,
  json,
  killStarted,
  makeHome,
  ROOT,
  startCast,
  type TempHome,
  waitForWatcher,
  writeFile,
} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'

type Lib = typeof import('../../src/lib/client/index.js')
const lib = (): Promise<Lib> => import(path.join(ROOT, 'dist/lib/client/index.js')) as Promise<Lib>

const sid = (n: number): string => `5e1f0000-0000-4000-8000-0000000f${String(n).padStart(4, '0')}`

describe('the library', () => {
  let h: TempHome
  let proj: string

  beforeEach(() => {
    h = makeHome()
    proj = makeProject(h.dir)
  })

  afterEach(() => {
    killStarted()
    h.cleanup()
  })

  const session = (n: number, prompt: string): void =>
    writeFile(
      claudeTranscriptPath(h.home, proj, sid(n)),
      claudeLines({at: new Date(Date.now() - 60_000), cwd: proj, prompt, sessionId: sid(n)}),
    )

  it('answers as the CLI does, throws one CastError by exit name, and never loads oclif', async () => {
    session(1, 'Port the parser')
    const id = (json(await runCommand(['state', 'show', sid(1), '--json'], {env: h.env})) as {session: string}).session
    const probe = path.join(h.dir, 'loaded.txt')

    const out = execFileSync(
      process.execPath,
      ['--import', path.join(import.meta.dirname, 'loaded-probe.mjs'), path.join(import.meta.dirname, 'use-library.mjs'), id],
      {
        cwd: ROOT,
        env: {...h.env, CAST_LOADED_PROBE: probe},
        encoding: 'utf8',
      },
    )

    const r = JSON.parse(out) as {sessions: string[]; explain: string; declared: string; error: unknown}
    expect(r.sessions).toEqual((json(await runCommand(['sessions', '--json'], {env: h.env})).sessions as {id: string}[]).map((s) => s.id))
    expect(r.explain).toBe(id)
    expect(r.declared).toBe('done')
    expect(r.error).toEqual({code: 'NOT_FOUND', exit: 3, isCastError: true})
    const loaded = fs.readFileSync(probe, 'utf8').split('\n')
    // The probe saw the library load (it can fail), and no @oclif module among what it loaded.
    expect(loaded.some((u) => u.includes('/dist/lib/client/index.js'))).toBe(true)
    expect(loaded.some((u) => u.includes('better-sqlite3') || u.includes('/core/store/store.js'))).toBe(true)
    expect(loaded.filter((u) => u.includes('@oclif'))).toEqual([])
  })

  it('watch resumes by seq across a daemon restart: 0 lost, 0 doubled', async () => {
    const {openInbox} = await lib()
    const inbox = await openInbox({env: h.env})
    const start = inbox.storeHandle.lastSeq()
    const seen: {seq: number; event: string; session_id: string | null}[] = []
    const abort = new AbortController()
    const watching = (async () => {
      for await (const line of inbox.watch({signal: abort.signal, since: start})) seen.push(line)
    })()
    const sawNew = (n: number) => () => seen.some((l) => l.event === 'new' && l.session_id === sid(n))

    let daemon = startCast(['daemon'], h.env)
    await waitForWatcher(h.castHome, 60_000)
    session(1, 'First worker')
    await waitFor(sawNew(1), 60_000, () => JSON.stringify(seen))
    await daemon.stop()
    // No ingester now: the watch syncs the agents' files itself.
    session(2, 'Second worker')
    await waitFor(sawNew(2), 60_000, () => JSON.stringify(seen))
    daemon = startCast(['daemon'], h.env)
    await waitForWatcher(h.castHome, 60_000)
    session(3, 'Third worker')
    await waitFor(sawNew(3), 60_000, () => JSON.stringify(seen))
    await daemon.stop()
    abort.abort()
    await watching

    // A fresh replay of the log from the same seq: the live stream held exactly its lines.
    const replay: number[] = []
    const end = new AbortController()
    const last = inbox.storeHandle.lastSeq()
    for await (const line of inbox.watch({signal: end.signal, since: start})) {
      replay.push(line.seq)
      if (line.seq >= last) end.abort()
    }

    const seqs = seen.map((l) => l.seq)
    expect(new Set(seqs).size).toBe(seqs.length)
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
    expect(replay.slice(0, seqs.length)).toEqual(seqs)
    for (const n of [1, 2, 3]) expect(seen.filter((l) => l.event === 'new' && l.session_id === sid(n))).toHaveLength(1)
    inbox.close()
  })
})
