/**
 * `cast daemon --once` (documented for cron) is one pass of the daemon: the ingest, and the settle
 * classifier's verdict on a turn that ended undeclared (docs/contract.md §3.4 rule 7). The team
 * half (publish, teammates' actions) is test/team/daemon-once.test.ts.
 */
import fs from 'node:fs'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {claudeLines, claudeTranscriptPath, json, makeHome, runCast, type TempHome, writeFile} from '../helpers/cli.js'

const SID = '5e1f0000-0000-4000-8000-00000000d001'

describe('cast daemon --once', () => {
  let h: TempHome

  beforeEach(() => {
    h = makeHome()
    const proj = path.join(h.dir, 'proj')
    fs.mkdirSync(proj, {recursive: true})
    writeFile(
      claudeTranscriptPath(h.home, proj, SID),
      claudeLines({at: new Date(Date.now() - 60_000), cwd: proj, prompt: 'Write the release notes', sessionId: SID, settled: true}),
    )
    // A settle classifier that judges every turn delivered.
    const judge = path.join(h.dir, 'judge.sh')
    fs.writeFileSync(judge, '#!/bin/sh\ncat >/dev/null\necho \'{"verdict":"delivered","why":"the notes are written"}\'\n', {mode: 0o755})
    fs.mkdirSync(h.castHome, {recursive: true})
    fs.writeFileSync(path.join(h.castHome, 'config.json'), JSON.stringify({settle_classifier: [judge]}))
  })

  afterEach(() => h.cleanup())

  it('runs the settle classifier as the daemon does: an undeclared finished turn reads done/delivered after one pass', async () => {
    const r = await runCast(['daemon', '--once', '--json'], {env: h.env})

    expect(r.code, r.stderr).toBe(0)
    const s = json(await runCast(['state', 'show', SID, '--json'], {env: h.env}))
    expect(s).toMatchObject({reason: 'delivered', state: 'done'})
    expect(json(r)).toMatchObject({sessions: 1, team_reached: null})
    // The lease is let go: a second pass runs.
    expect((await runCast(['daemon', '--once'], {env: h.env})).code).toBe(0)
  })
})
