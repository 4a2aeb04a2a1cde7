/**
 * A stored process claim that carries no facts (a claim alone, as bench/state.js and
 * test/e2e/state-fast.test.ts write one): the ingester composes the session from it without
 * reading `facts` of a contribution that has none (src/core/ingest/recompose.ts). It used to stop
 * the daemon ("Cannot read properties of undefined (reading 'messages')") and `cast state` after it.
 */
import fs from 'node:fs'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {processStartTime} from '../../src/core/ingest/process-table.js'
import {Store} from '../../src/core/store/store.js'
import {claudeLines, claudeTranscriptPath, json, makeHome, runCast, type TempHome, writeFile} from '../helpers/cli.js'

const SID = 'aaaaaaaa-1111-4222-8333-0000000000d1'
let h: TempHome
beforeEach(() => {
  h = makeHome()
  const cwd = '/src/app'
  writeFile(claudeTranscriptPath(h.home, cwd, SID), claudeLines({at: new Date(Date.now() - 60_000), cwd, prompt: 'Fix it', sessionId: SID}))
})
afterEach(() => h.cleanup())

describe('a session whose only stored contribution besides its facts is a claim with no facts', () => {
  it('the daemon pass and cast state through the process tree answer instead of failing', async () => {
    await runCast(['sessions', '--json'], {env: h.env})
    const store = new Store(h.castHome)
    const claim = {
      processClaim: {
        heartbeatAt: null,
        pid: process.pid,
        source: {kind: 'registry', ref: 'test'},
        startedAt: processStartTime(process.pid),
        status: null,
      },
    }
    store.tx(() => store.upsertContribution('test://claim', 'claude_code', 'registry', SID, JSON.stringify(claim), Date.now()))
    store.close()
    // The transcript goes away: the claim is the session's only contribution.
    fs.rmSync(claudeTranscriptPath(h.home, '/src/app', SID))

    const once = await runCast(['daemon', '--once'], {env: h.env})
    const declared = await runCast(['state', 'Claimed only'], {env: h.env})

    expect(once.stderr).not.toContain('Cannot read properties')
    expect(once.code).toBe(0)
    expect(declared.stderr).not.toContain('Cannot read properties')
    expect(declared.code).toBe(0)
    expect(declared.stdout).toContain(`found via process tree (pid ${process.pid})`)
    expect(json(await runCast(['explain', SID, '--json'], {env: h.env})).session.state_line).toMatchObject({text: 'Claimed only'})
  })
})
