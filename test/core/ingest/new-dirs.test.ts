/**
 * A transcript created together with its new folder while the daemon runs is read within
 * seconds, even when the watcher's event for the file is lost (seen once in 30 under load):
 * NewDirs (src/core/ingest/live-watch.ts) rescans folders that appeared, and the daemon is tried
 * with many folder+file pairs made in one quick step each.
 */
import fs from 'node:fs'
import path from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {NEW_DIR_WINDOW_MS, NewDirs} from '../../../src/core/ingest/live-watch.js'
import {waitFor} from '../../fakes/agents.js'
import {json, killStarted, makeHome, runCast, startCast, type TempHome, waitForWatcher} from '../../helpers/cli.js'

describe('NewDirs', () => {
  let h: TempHome
  beforeEach(() => {
    h = makeHome()
  })
  afterEach(() => h.cleanup())

  it('returns the files of a folder that appeared, new or changed since the last look, for the window only', () => {
    const dirs = new NewDirs()
    const d = path.join(h.dir, 'projects', '-w-a')
    const spool = path.join(h.dir, 'spool')
    fs.mkdirSync(path.join(d, 'subagents'), {recursive: true})
    fs.mkdirSync(path.join(d, 'node_modules'))
    fs.mkdirSync(spool)
    const t0 = Date.now()
    dirs.add(d, t0)
    dirs.add(spool, t0, new Set([spool]))
    // No event for these: only the rescan can find them.
    fs.writeFileSync(path.join(d, 's1.jsonl'), '{}\n')
    fs.writeFileSync(path.join(d, 'subagents', 'agent-1.jsonl'), '{}\n')
    fs.writeFileSync(path.join(d, 'node_modules', 'x.js'), '')
    fs.writeFileSync(path.join(spool, 'hook.json'), '{}')

    expect(dirs.scan(t0 + 100).sort()).toEqual([path.join(d, 's1.jsonl'), path.join(d, 'subagents', 'agent-1.jsonl')])
    expect(dirs.scan(t0 + 200)).toEqual([])
    fs.appendFileSync(path.join(d, 's1.jsonl'), '{"more":1}\n')
    expect(dirs.scan(t0 + 300)).toEqual([path.join(d, 's1.jsonl')])
    fs.appendFileSync(path.join(d, 's1.jsonl'), '{"more":2}\n')
    expect(dirs.scan(t0 + NEW_DIR_WINDOW_MS + 1)).toEqual([])
  })
})

describe('the daemon and new folders', () => {
  let h: TempHome
  beforeEach(() => {
    h = makeHome()
  })
  afterEach(() => {
    killStarted()
    h.cleanup()
  })

  it('reads every transcript made together with its folder, 40 times in quick succession', async () => {
    const root = path.join(h.home, '.claude', 'projects')
    fs.mkdirSync(root, {recursive: true})
    const d = startCast(['daemon'], h.env)
    await waitForWatcher(h.castHome)
    const N = 40
    for (let i = 0; i < N; i++) {
      const sid = `aaaaaaaa-0000-4000-8000-${String(i).padStart(12, '0')}`
      const dir = path.join(root, `-w-nd-${i}`)
      fs.mkdirSync(dir)
      const line = {
        cwd: `/w/nd/${i}`,
        message: {content: `go ${i}`, role: 'user'},
        sessionId: sid,
        timestamp: new Date().toISOString(),
        type: 'user',
        uuid: `u${i}`,
      }
      fs.writeFileSync(path.join(dir, `${sid}.jsonl`), JSON.stringify(line) + '\n')
    }

    // Seconds, not a timing assertion: the bound only ends a test that would otherwise hang.
    const count = async (): Promise<number> => json(await runCast(['sessions', '--json', '--all'], {env: h.env})).sessions.length
    await waitFor(
      async () => (await count()) === N || null,
      30_000,
      () => 'not every new folder was read',
    )
    expect(await count()).toBe(N)
    expect(await d.stop()).toBe(0)
  })
})
