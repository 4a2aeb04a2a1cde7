/**
 * `cast wait --until STATE --any` with no session: an orchestrator waits for whichever session of
 * its inbox comes to need it, and the line names that session and why.
 */
import fs from 'node:fs'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {claudeLines, claudeTranscriptPath, json, makeHome, runCast, type TempHome, writeFile} from '../helpers/cli.js'

const A = 'aaaaaaaa-1111-4222-8333-444444444444'
const B = 'bbbbbbbb-1111-4222-8333-444444444444'

describe('cast wait --any with no session', () => {
  let h: TempHome
  const file = (sid: string): string => claudeTranscriptPath(h.home, '/src/app', sid)
  const start = (sid: string, prompt: string): void =>
    writeFile(file(sid), claudeLines({at: new Date(Date.now() - 5000), cwd: '/src/app', prompt, sessionId: sid, settled: false}))
  const ask = (sid: string): void => {
    const content = [{id: 'toolu_q9', input: {questions: [{question: 'Which region?'}]}, name: 'AskUserQuestion', type: 'tool_use'}]
    const line = {
      cwd: '/src/app',
      message: {content, id: 'msg_q9', model: 'claude-opus-4', role: 'assistant', type: 'message'},
      sessionId: sid,
      timestamp: new Date().toISOString(),
      type: 'assistant',
      uuid: 'aq9',
    }
    fs.appendFileSync(file(sid), JSON.stringify(line) + '\n')
  }

  beforeEach(() => {
    h = makeHome()
    start(A, 'Refactor the parser')
    start(B, 'Deploy the service')
  })

  afterEach(() => h.cleanup())

  it('waits until any session in the inbox needs input, then names it (short id, state:reason, title)', async () => {
    const before = json(await runCast(['sessions', '--json'], {env: h.env}))
    expect(before.sessions.map((s: {state: string}) => s.state)).toEqual(['working', 'working'])
    const short = before.sessions.find((s: {native_id: string}) => s.native_id === B).short_id as string

    const waiting = runCast(['wait', '--until', 'needs_input', '--any', '--timeout', '30s'], {env: h.env})
    await new Promise((r) => setTimeout(r, 1500))
    ask(B)
    const r = await waiting

    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^${short}  needs_input:question  Deploy the service`))])
  })

  it('times out with 124 when none does; without --any it asks for the sessions (exit 2)', async () => {
    const timedOut = await runCast(['wait', '--until', 'done', '--any', '--timeout', '1s'], {env: h.env})
    const bare = await runCast(['wait', '--until', 'needs_input'], {env: h.env})

    expect(timedOut.code).toBe(124)
    expect(timedOut.stderr).toContain('timed out waiting for any session to be done')
    expect(bare.code).toBe(2)
    expect(bare.stderr).toContain('--any')
  })
})
