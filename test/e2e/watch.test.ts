import {spawn, spawnSync} from 'node:child_process'
import fs from 'node:fs'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {
  BIN,
  claudeLines,
  killStarted,
  waitForWatcher,
  claudeTranscriptPath,
  HOOK_BIN,
  json,
  makeHome,
  runCast,
  startCast,
  type TempHome,
  writeFile,
} from '../helpers/cli.js'

const A = 'cccccccc-1111-4222-8333-444444444444'
const B = 'dddddddd-1111-4222-8333-444444444444'
let h: TempHome
beforeEach(() => {
  h = makeHome()
})
afterEach(() => {
  killStarted()
  h.cleanup()
})

const file = (sid: string): string => claudeTranscriptPath(h.home, '/src/app', sid)
const startSession = (sid: string, prompt: string): void =>
  writeFile(file(sid), claudeLines({at: new Date(Date.now() - 5000), cwd: '/src/app', prompt, sessionId: sid, settled: false}))
const askQuestion = (sid: string, n: number): void => {
  fs.appendFileSync(
    file(sid),
    JSON.stringify({
      cwd: '/src/app',
      message: {
        content: [{id: `toolu_q${n}`, input: {questions: [{question: `Question ${n}?`}]}, name: 'AskUserQuestion', type: 'tool_use'}],
        id: `msg_q${n}`,
        model: 'claude-opus-4',
        role: 'assistant',
        type: 'message',
      },
      sessionId: sid,
      timestamp: new Date().toISOString(),
      type: 'assistant',
      uuid: `aq${n}`,
    }) + '\n',
  )
}

const answer = (sid: string, n: number): void => {
  fs.appendFileSync(
    file(sid),
    JSON.stringify({
      cwd: '/src/app',
      message: {content: [{content: 'Postgres', tool_use_id: `toolu_q${n}`, type: 'tool_result'}], role: 'user'},
      sessionId: sid,
      timestamp: new Date().toISOString(),
      type: 'user',
      uuid: `ur${n}`,
    }) + '\n',
  )
}

describe('cast sessions -w --json', () => {
  it('prints nothing until a change, then exactly one line per transition caused by an appended line', async () => {
    startSession(A, 'Pick a database')
    await runCast(['sessions'], {env: h.env})
    const w = startCast(['sessions', '-w', '--json'], h.env)
    await waitForWatcher(h.castHome)
    await new Promise((r) => setTimeout(r, 500))
    expect(w.lines).toEqual([])

    askQuestion(A, 1)
    const line = JSON.parse(await w.nextLine())

    expect(line).toMatchObject({
      agent: 'claude_code',
      bucket: 'questions',
      event: 'transition',
      from: 'working',
      reason: 'question',
      session_id: A,
      title: 'Pick a database',
      to: 'needs_input',
    })
    expect(Object.keys(line)).toEqual(
      expect.arrayContaining(['seq', 'ts', 'id', 'is_pinned', 'is_live', 'label', 'labels', 'owners', 'cwd']),
    )
    expect(await w.stop()).toBe(0)
    expect(w.lines).toHaveLength(1)
  })

  it('resumes with --since: after a restart nothing is lost and nothing doubled', async () => {
    startSession(A, 'First')
    startSession(B, 'Second')
    await runCast(['sessions'], {env: h.env})
    const w1 = startCast(['sessions', '-w', '--json'], h.env)
    await waitForWatcher(h.castHome)
    askQuestion(A, 1)
    const first = JSON.parse(await w1.nextLine())
    expect(await w1.stop()).toBe(0)

    // While nobody watches, two more changes happen.
    answer(A, 1)
    askQuestion(B, 2)
    await runCast(['sessions'], {env: h.env})
    const w2 = startCast(['sessions', '-w', '--json', '--since', String(first.seq)], h.env)
    const replay = [JSON.parse(await w2.nextLine()), JSON.parse(await w2.nextLine())]
    askQuestion(A, 3)
    const live = JSON.parse(await w2.nextLine())
    await new Promise((r) => setTimeout(r, 500))
    await w2.stop()

    const seqs = [first, ...replay, live].map((l) => l.seq)
    expect(new Set(seqs).size).toBe(seqs.length)
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
    expect(replay.map((l) => [l.session_id, l.to, l.reason])).toEqual([
      [A, 'working', 'turn_pending'],
      [B, 'needs_input', 'question'],
    ])
    expect(live).toMatchObject({reason: 'question', session_id: A})
    expect(w2.lines).toHaveLength(3)
    const all = json(await runCast(['sessions', '--json'], {env: h.env}))
    expect(all.sessions).toHaveLength(2)
  })

  it('--snapshot first prints every matching session once; filters apply', async () => {
    startSession(A, 'First')
    startSession(B, 'Second')
    const w = startCast(['sessions', '-w', '--json', '--snapshot'], h.env)
    const snap = [JSON.parse(await w.nextLine()), JSON.parse(await w.nextLine())]
    const filtered = startCast(['sessions', '-w', '--json', '--state', 'done'], h.env)
    await waitForWatcher(h.castHome)
    await new Promise((r) => setTimeout(r, 500))
    askQuestion(B, 1)
    const line = JSON.parse(await w.nextLine())
    await new Promise((r) => setTimeout(r, 800))
    await w.stop()
    await filtered.stop()

    expect(snap.map((s) => [s.event, s.to])).toEqual([
      ['snapshot', 'working'],
      ['snapshot', 'working'],
    ])
    expect(snap.map((s) => s.session_id).sort()).toEqual([A, B].sort())
    expect(line).toMatchObject({event: 'transition', session_id: B, to: 'needs_input'})
    expect(filtered.lines).toEqual([])
  })

  it('exits 0 quietly at its next line once its reader has closed the pipe', async () => {
    startSession(A, 'First')
    startSession(B, 'Second')
    // head takes one line and exits; the watcher finds out at its next write, like any Unix filter.
    const child = spawn(
      'bash',
      [
        '-c',
        `node ${BIN} sessions -w --json --snapshot 2>/tmp/cast-pipe-err-$$ | head -n 1; echo "\${PIPESTATUS[0]}"; cat /tmp/cast-pipe-err-$$; rm -f /tmp/cast-pipe-err-$$`,
      ],
      {env: h.env},
    )
    let out = ''
    child.stdout.on('data', (c) => (out += String(c)))
    const exited = new Promise((resolve) => child.on('close', resolve))
    await new Promise((r) => setTimeout(r, 2500))
    askQuestion(A, 1)
    askQuestion(B, 2)
    const code = await exited

    expect(code).toBe(0)
    const lines = out.trim().split('\n')
    expect(JSON.parse(lines[0]!).event).toBe('snapshot')
    expect(lines[1]).toBe('0')
    expect(lines.slice(2).join('')).toBe('')
  })

  it('shows a hook-delivered permission request as approval, which no transcript shows', async () => {
    startSession(A, 'Deploy')
    const w = startCast(['sessions', '-w', '--json'], h.env)
    await waitForWatcher(h.castHome)

    const payload = JSON.stringify({
      cwd: '/src/app',
      hook_event_name: 'PermissionRequest',
      session_id: A,
      tool_input: {command: 'rm -rf build'},
      tool_name: 'Bash',
      transcript_path: file(A),
    })
    const hook = spawnSync(HOOK_BIN, ['claude_code'], {env: h.env, input: payload})
    const line = JSON.parse(await w.nextLine())
    await w.stop()

    expect(hook.status).toBe(0)
    expect(line).toMatchObject({bucket: 'questions', reason: 'approval', session_id: A, to: 'needs_input'})
  })
})

describe('cast daemon', () => {
  it('--once syncs and exits; status shows the store; a second ingester is refused while one runs', async () => {
    startSession(A, 'First')

    const once = json(await runCast(['daemon', '--once', '--json'], {env: h.env}))
    const idle = json(await runCast(['daemon', 'status', '--json'], {env: h.env}))
    const d = startCast(['daemon'], h.env)
    let status = idle
    for (let i = 0; i < 40 && !status.running; i++) {
      await new Promise((r) => setTimeout(r, 250))
      status = json(await runCast(['daemon', 'status', '--json'], {env: h.env}))
    }

    const second = await runCast(['daemon'], {env: h.env})
    askQuestion(A, 1)
    const waited = await runCast(['wait', A, '--until', 'needs_input', '--timeout', '10s', '--json'], {env: h.env})
    expect(await d.stop()).toBe(0)

    expect(once).toMatchObject({read: 1, sessions: 1})
    expect(idle).toMatchObject({running: false, sessions: 1})
    expect(status.running).toBe(true)
    expect(status.holder.pid).toBe(d.child.pid)
    expect(second.code).toBe(5)
    expect(waited.code).toBe(0)
    expect(json(waited).sessions[0]).toMatchObject({reason: 'question', state: 'needs_input'})
  })

  it('cast wait times out with 124', async () => {
    startSession(A, 'First')

    const r = await runCast(['wait', A, '--until', 'done', '--timeout', '1s'], {env: h.env})

    expect(r.code).toBe(124)
  })
})
