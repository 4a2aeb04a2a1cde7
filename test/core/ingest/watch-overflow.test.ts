/**
 * The kernel's inotify queue holds /proc/sys/fs/inotify/max_queued_events events (16,384 by
 * default); while the daemon cannot read (stopped here with SIGSTOP, starved on a busy machine)
 * everything past that is dropped, the event that names a new project folder included. A
 * transcript written then in a new folder must still be read: the daemon's folder sweep
 * (src/core/ingest/live-watch.ts FolderSweep) finds folders whose listing changed without an event,
 * and a stalled daemon rescans the roots once it runs again (src/core/ingest/lost-events.ts).
 */
import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {FolderSweep, NewDirs} from '../../../src/core/ingest/live-watch.js'
import {waitFor} from '../../fakes/agents.js'
import {json, killStarted, makeHome, runCast, startCast, type TempHome, waitForWatcher} from '../../helpers/cli.js'

const queued = (): number => {
  try {
    return Number(fs.readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8').trim())
  } catch {
    return 16_384
  }
}

describe('FolderSweep', () => {
  let h: TempHome
  beforeEach(() => {
    h = makeHome()
  })
  afterEach(() => h.cleanup())

  it('reports a folder whose listing moved and the folders new to it, once each; nothing when nothing moved', () => {
    const root = path.join(h.dir, 'projects')
    fs.mkdirSync(path.join(root, '-w-a'), {recursive: true})
    const sweep = new FolderSweep([root])
    expect(sweep.sweep()).toEqual([])
    fs.mkdirSync(path.join(root, '-w-b', 'subagents'), {recursive: true})
    fs.mkdirSync(path.join(root, 'node_modules'))
    expect(sweep.sweep().sort()).toEqual([root, path.join(root, '-w-b'), path.join(root, '-w-b', 'subagents')])
    expect(sweep.sweep()).toEqual([])
    fs.writeFileSync(path.join(root, '-w-a', 's.jsonl'), '{}\n')
    expect(sweep.sweep()).toEqual([path.join(root, '-w-a')])
    expect(sweep.sweep(true)).toEqual([])
  })

  it('NewDirs says when a folder holds more files than it lists (the ingester then reads everything)', () => {
    const dir = path.join(h.dir, 'projects', '-w-big')
    fs.mkdirSync(dir, {recursive: true})
    const dirs = new NewDirs()
    dirs.add(dir, Date.now())
    for (let i = 0; i < 10; i++) fs.writeFileSync(path.join(dir, `f${i}.jsonl`), '{}\n')
    expect(dirs.scan(Date.now())).toHaveLength(10)
    expect(dirs.takeTruncated()).toBe(false)
    for (let i = 10; i < 600; i++) fs.writeFileSync(path.join(dir, `f${i}.jsonl`), '{}\n')
    expect(dirs.scan(Date.now()).length).toBeLessThan(600)
    expect(dirs.takeTruncated()).toBe(true)
    expect(dirs.takeTruncated()).toBe(false)
  })
})

describe('the daemon after the inotify queue overflowed', () => {
  let h: TempHome
  beforeEach(() => {
    h = makeHome()
  })
  afterEach(() => {
    killStarted()
    h.cleanup()
  })

  it('reads the transcripts written while its events were dropped: in a new project folder and in a big quiet one', async () => {
    const root = path.join(h.home, '.claude', 'projects')
    const busy = path.join(root, '-w-busy')
    fs.mkdirSync(busy, {recursive: true})
    // A project folder with more files than a folder listing reads, which nothing writes to after
    // the overflow (a later event in a folder makes chokidar list it again, and that heals it).
    const big = path.join(root, '-w-big')
    fs.mkdirSync(big)
    // Named to list before the new transcript where a listing comes in name order (as on this ext4).
    for (let i = 0; i < 1500; i++) fs.writeFileSync(path.join(big, `a${i}.txt`), 'x')
    const d = startCast(['daemon'], h.env)
    await waitForWatcher(h.castHome)
    const pid = d.child.pid!
    process.kill(pid, 'SIGSTOP')
    const sid = 'bbbbbbbb-0000-4000-8000-000000000001'
    // A one-shot session in the big quiet folder: written once, never again.
    const sid2 = 'bbbbbbbb-0000-4000-8000-000000000002'
    try {
      // Each new file is at least two distinct events (create, close): twice the queue overflows it.
      const n = Math.ceil(queued() / 2) + 2000
      execFileSync(process.execPath, [
        '-e',
        `const fs=require('fs');for(let i=0;i<${n};i++)fs.writeFileSync(${JSON.stringify(busy)}+'/x'+i+'.txt','x')`,
      ])
      const dir = path.join(root, '-w-after-overflow')
      fs.mkdirSync(dir)
      const line = (id: string, cwd: string): string =>
        JSON.stringify({
          cwd,
          message: {content: 'go', role: 'user'},
          sessionId: id,
          timestamp: new Date().toISOString(),
          type: 'user',
          uuid: 'u1',
        }) + '\n'
      fs.writeFileSync(path.join(dir, `${sid}.jsonl`), line(sid, '/w/after/overflow'))
      fs.writeFileSync(path.join(big, `${sid2}.jsonl`), line(sid2, '/w/big'))
    } finally {
      process.kill(pid, 'SIGCONT')
    }

    // Seconds, not a timing assertion: the bound only ends a test that would otherwise hang.
    const ids = async (): Promise<string[]> =>
      (json(await runCast(['sessions', '--json', '--all'], {env: h.env})).sessions as {native_id?: string; id: string}[]).map(
        (s) => s.native_id ?? s.id,
      )
    let seen: string[] = []
    await waitFor(
      async () => ((seen = await ids()), seen.includes(sid) && seen.includes(sid2)) || null,
      60_000,
      () =>
        `not read after the overflow: ${[
          seen.includes(sid) ? '' : 'the transcript in the new folder',
          seen.includes(sid2) ? '' : 'the new transcript in the big quiet folder',
        ]
          .filter(Boolean)
          .join(', ')}`,
    )
    expect(await d.stop()).toBe(0)
  }, 120_000)
})
