/**
 * `cast state` answers without oclif while a live ingester keeps the store current
 * (src/lib/state/state-fast.ts): the same bytes and exit codes as the command itself, which the test
 * runs in-process through oclif (test/helpers/run-command.ts) beside the spawned fast path.
 */
import fs from 'node:fs'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {processStartTime} from '../../src/core/ingest/process-table.js'
import {Store} from '../../src/core/store/store.js'
import {claudeLines, claudeTranscriptPath, json, makeHome, runCast, startCast, type TempHome, writeFile} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'

const SID = 'aaaaaaaa-1111-4222-8333-0000000000c1'
const OTHER = 'aaaaaaaa-1111-4222-8333-0000000000c2'
let h: TempHome
let daemon: ReturnType<typeof startCast> | undefined
beforeEach(async () => {
  h = makeHome()
  const cwd = '/src/app'
  const at = new Date(Date.now() - 60_000)
  writeFile(claudeTranscriptPath(h.home, cwd, SID), claudeLines({at, cwd, prompt: 'Fix the test', sessionId: SID}))
  writeFile(claudeTranscriptPath(h.home, cwd, OTHER), claudeLines({at, cwd, prompt: 'Other', sessionId: OTHER}))
  daemon = startCast(['daemon'], h.env)
  // Until the daemon runs and its socket is in place (it is bound under another name and renamed
  // there once listening): a case that asserts the socket route must not start before it. 90 s
  // bounds a daemon's start at load 10+ (its first sync reads the two transcripts).
  const sock = path.join(h.castHome, 'run', 'state.sock')
  const deadline = Date.now() + 90_000
  while (!(fs.existsSync(sock) && json(await runCast(['daemon', 'status', '--json'], {env: h.env})).running)) {
    if (Date.now() > deadline) throw new Error(`cast daemon did not start within 90 s (no ${sock})`)
    await new Promise((r) => setTimeout(r, 250))
  }
}, 120_000)
afterEach(async () => {
  await daemon?.stop()
  h.cleanup()
})

/** A JSON answer with the clock's own fields taken out: the two runs are made at different times. */
function timeless(text: string): unknown {
  return JSON.parse(text, (k, v: unknown) => (k === 'at' || k.endsWith('_at') || k === 'age' ? '<time>' : v))
}

describe('cast state while cast daemon runs', () => {
  it('prints what the command prints, human and --json, found by --session, CAST_SESSION or the agent variable', async () => {
    const fast = await runCast(['state', '--session', SID, 'Shipping the fix'], {env: h.env})
    const slow = await runCommand(['state', '--session', SID, 'Shipping the fix'], {env: h.env})
    const fastJson = await runCast(['state', '--status', 'done', 'Shipped\nall green', '--json'], {env: {...h.env, CAST_SESSION: SID}})
    const slowJson = await runCommand(['state', '--status', 'done', 'Shipped\nall green', '--json'], {env: {...h.env, CAST_SESSION: SID}})
    const byVariable = await runCast(['state', 'From the agent'], {env: {...h.env, CLAUDE_SESSION_ID: OTHER}})

    expect(fast).toMatchObject({code: 0, stderr: ''})
    expect(fast.stdout).toMatch(/^\w{7}: working — Shipping the fix {2}\(now \w+:\w+; found via --session\)\n$/)
    expect(fast.stdout).toBe(slow.stdout)
    expect(fastJson.code).toBe(0)
    expect(timeless(fastJson.stdout)).toEqual(timeless(slowJson.stdout))
    expect(json(fastJson).session.state_line).toMatchObject({status: 'done', text: 'Shipped\nall green'})
    expect(byVariable.stdout).toContain('found via CLAUDE_SESSION_ID')
    expect(json(await runCast(['explain', OTHER, '--json'], {env: h.env})).session.state_line).toMatchObject({text: 'From the agent'})
  })

  it("finds the session through the process tree: the claim on its caller's parent, alive and started when it says", async () => {
    // A claim on this test process (the parent of every cast it spawns), as a registry file gives one.
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
    store.tx(() => store.upsertContribution('test://claim', 'claude_code', 'registry', OTHER, JSON.stringify(claim), Date.now()))
    store.close()

    const probe = path.join(h.dir, 'probe')
    const found = await runCast(['state', '--status', 'blocked', 'Need the staging password'], {
      env: {
        ...h.env,
        CAST_TEST_PROBE: probe,
        NODE_OPTIONS: `--import=${path.join(import.meta.dirname, '..', 'helpers', 'oclif-probe.mjs')}`,
      },
    })
    const other = json(await runCast(['explain', OTHER, '--json'], {env: h.env})).session

    expect(found).toMatchObject({code: 0, stderr: ''})
    expect(found.stdout).toMatch(
      new RegExp(`^\\w{7}: blocked — Need the staging password  \\(now \\w+:\\w+; found via process tree \\(pid ${process.pid}\\)\\)\\n$`),
    )
    expect(other.state_line).toMatchObject({status: 'blocked', text: 'Need the staging password'})
    expect(fs.readFileSync(probe, 'utf8')).toBe('socket\n')
  })

  it('leaves what it does not answer to the command: an unknown or ambiguous session, a bad status, stdin', async () => {
    const unknown = await runCast(['state', '--session', 'zzzzzzzz', 'x'], {env: h.env})
    const ambiguous = await runCast(['state', '--session', 'aaaaaaaa', 'x'], {env: h.env})
    const badStatus = await runCast(['state', '--status', 'finished', 'x', '--session', SID], {env: h.env})
    const stdin = await runCast(['state', '-', '--session', SID], {env: h.env, input: 'From stdin\n'})

    expect(unknown.code).toBe(3)
    expect(unknown.stderr).toContain('No session matches "zzzzzzzz"')
    expect(ambiguous.code).toBe(4)
    expect(badStatus.code).toBe(2)
    expect(stdin.code).toBe(0)
    expect(stdin.stdout).toContain('From stdin')
    expect(fs.existsSync(path.join(h.castHome, 'cast.db'))).toBe(true)
  })
})

describe('cast state with no live ingester', () => {
  it("syncs the session's own file first: lines written since the last sync count before the declaration", async () => {
    await daemon?.stop()
    daemon = undefined
    const file = claudeTranscriptPath(h.home, '/src/app', SID)
    await runCast(['sessions', '--json'], {env: h.env})
    const before = json(await runCast(['explain', SID, '--json'], {env: h.env})).session.messages
    // Two more messages, which no sync has read yet.
    const more = claudeLines({at: new Date(Date.now() - 30_000), cwd: '/src/app', prompt: 'And the docs', sessionId: SID})
    fs.appendFileSync(file, more)
    const declared = await runCast(['state', '--session', SID, 'Docs next'], {env: h.env})
    const after = json(await runCast(['explain', SID, '--json'], {env: h.env})).session

    expect(declared).toMatchObject({code: 0, stderr: ''})
    expect(declared.stdout).toContain('found via --session')
    expect(after.messages).toBeGreaterThan(before)
    expect(after.state_line).toMatchObject({messages_since: 0, text: 'Docs next'})
  })
})
