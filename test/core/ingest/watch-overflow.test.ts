/**
 * The kernel's inotify queue holds /proc/sys/fs/inotify/max_queued_events events (16,384 by
 * default); while the daemon cannot read (stopped here with SIGSTOP, starved on a busy machine)
 * everything past that is dropped, the event that names a new project folder included. A
 * transcript written then in a new folder must still be read: the daemon's folder sweep
 * (src/core/ingest/live-watch.ts FolderSweep) finds folders whose listing changed without an event.
 */
import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {FolderSweep} from '../../../src/core/ingest/live-watch.js'
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

  it('reads a transcript written in a new project folder while its events were dropped', async () => {
    const root = path.join(h.home, '.claude', 'projects')
    const busy = path.join(root, '-w-busy')
    fs.mkdirSync(busy, {recursive: true})
    const d = startCast(['daemon'], h.env)
    await waitForWatcher(h.castHome)
    const pid = d.child.pid!
    process.kill(pid, 'SIGSTOP')
    const sid = 'bbbbbbbb-0000-4000-8000-000000000001'
    try {
      // Each new file is at least two distinct events (create, close): twice the queue overflows it.
      const n = Math.ceil(queued() / 2) + 2000
      execFileSync(process.execPath, [
        '-e',
        `const fs=require('fs');for(let i=0;i<${n};i++)fs.writeFileSync(${JSON.stringify(busy)}+'/x'+i+'.txt','x')`,
      ])
      const dir = path.join(root, '-w-after-overflow')
      fs.mkdirSync(dir)
      const line = {
        cwd: '/w/after/overflow',
        message: {content: 'go', role: 'user'},
        sessionId: sid,
        timestamp: new Date().toISOString(),
        type: 'user',
        uuid: 'u1',
      }
      fs.writeFileSync(path.join(dir, `${sid}.jsonl`), JSON.stringify(line) + '\n')
    } finally {
      process.kill(pid, 'SIGCONT')
    }

    // Seconds, not a timing assertion: the bound only ends a test that would otherwise hang.
    const ids = async (): Promise<string[]> =>
      (json(await runCast(['sessions', '--json', '--all'], {env: h.env})).sessions as {native_id?: string; id: string}[]).map(
        (s) => s.native_id ?? s.id,
      )
    await waitFor(
      async () => (await ids()).includes(sid) || null,
      60_000,
      () => 'the transcript in the new folder was not read after the overflow',
    )
    expect(await d.stop()).toBe(0)
  }, 120_000)
})
