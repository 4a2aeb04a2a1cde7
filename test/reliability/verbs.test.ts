/**
 * Verbs that act never harm (issue 11 points 1–3), tried with hostile inputs as real files and
 * processes: registry files that name pid 1, a reused pid, cast's own ancestor, a claim without a
 * start time; messages that begin with `-`, carry control bytes or a bracketed-paste end marker,
 * or exceed 64 KB; one session in two panes; a process two sessions claim (a shared daemon).
 */
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {afterAll, afterEach, beforeEach, describe, expect, it} from 'vitest'

import {sid, startedAtOf, writeSession} from '../commands/triage-helpers.js'
import {FAKE_CLAUDE, fakeInWindow, makeProject, startTmux, type TmuxServer, userTexts, waitFor, writeFakeConfig} from '../fakes/agents.js'
import {claudeLines, claudeTranscriptPath, json, makeHome, runCast, type TempHome, writeFile} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return !/^\S+ \(.*\) [ZX]/.test(st)
  } catch {
    return false
  }
}

const started: number[] = []
/** A detached process of our own (a stand-in for an agent, or an unrelated process). */
function spawnProc(script: string): number {
  const child = spawn('sh', ['-c', script], {detached: true, stdio: 'ignore'})
  child.unref()
  started.push(child.pid!)
  return child.pid!
}

function childrenOf(pid: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((p) => {
      try {
        const st = fs.readFileSync(`/proc/${p}/stat`, 'utf8')
        return Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]) === pid
      } catch {
        return false
      }
    })
}

afterAll(() => {
  for (const pid of started) {
    try {
      process.kill(-pid, 'SIGKILL')
    } catch {
      // gone
    }
  }
})

/** Claude Code's registry file naming `pid` for session `n`, with the given fields. */
function registry(h: TempHome, file: string, fields: Record<string, unknown>): void {
  writeFile(path.join(h.home, '.claude', 'sessions', `${file}.json`), JSON.stringify({status: 'busy', ...fields}))
}

describe('cast kill signals only a verified process', () => {
  let h: TempHome
  let proj: string
  beforeEach(() => {
    h = makeHome()
    proj = path.join(h.dir, 'proj')
    fs.mkdirSync(proj)
  })
  afterEach(() => h.cleanup())

  it('a registry file naming pid 1 (without a start time, or with its real one) is never signalled', async () => {
    writeSession(h, {cwd: proj, n: 1})
    registry(h, '1', {cwd: proj, pid: 1, sessionId: sid(1)})
    // pid 1 with its real start time: verified, and still never signalled.
    writeSession(h, {cwd: proj, n: 2})
    registry(h, '900002', {cwd: proj, pid: 1, sessionId: sid(2), startedAt: startedAtOf(1)})

    // Dry runs only: a regression here would signal init and everything under it.
    const r = json(await runCast(['kill', sid(1), sid(2), '--dry-run', '--json'], {env: h.env}))

    expect(r.dry_run).toBe(true)
    expect(r.killed.map((k: any) => k.signalled)).toEqual([[], []])
    expect(r.killed[0].refused).toEqual([{pid: 1, why: 'its recorded process is pid 1 (init), which cast never signals'}])
    expect(r.killed[1].refused).toEqual([{pid: 1, why: 'its recorded process is pid 1 (init), which cast never signals'}])
    // Nothing was filed either.
    expect(json(await runCast(['sessions', '--json', '--all'], {env: h.env})).counts.killed).toBe(0)
  })

  it('a claim without a start time, or one whose pid another process has reused, is never signalled', async () => {
    const victim = spawnProc('exec sleep 300')
    const reused = spawnProc('exec sleep 301')
    await waitFor(() => alive(victim) && alive(reused) && /sleep/.test(fs.readFileSync(`/proc/${reused}/cmdline`, 'utf8')))
    writeSession(h, {cwd: proj, n: 1})
    registry(h, String(victim), {cwd: proj, pid: victim, sessionId: sid(1)})
    writeSession(h, {cwd: proj, n: 2})
    // The agent that had this pid started an hour before the process that has it now.
    registry(h, String(reused), {cwd: proj, pid: reused, sessionId: sid(2), startedAt: startedAtOf(reused) - 3_600_000})

    const dry = json(await runCast(['kill', sid(1), sid(2), '--dry-run', '--json'], {env: h.env}))
    expect(dry.killed.map((k: any) => k.signalled)).toEqual([[], []])
    expect(dry.killed[0].refused[0]).toMatchObject({pid: victim, why: expect.stringContaining('records no start time')})
    expect(dry.killed[1].refused[0]).toMatchObject({pid: reused, why: expect.stringContaining('another process has that pid now')})

    const r = await runCast(['kill', sid(1), sid(2), '--grace', '0', '--json'], {env: h.env})

    // The unverified claim names a running pid: nothing could be signalled, so that session is
    // not filed (exit 5, one line); the one whose pid another process took is filed as killed.
    expect(r.code).toBe(5)
    expect(r.stderr).toContain(`was not killed: its process is live but nothing could be signalled (pid ${victim}: `)
    const out = json(r)
    expect(out.killed).toHaveLength(1)
    expect(out.killed[0]).toMatchObject({refused: [{pid: reused}], signalled: []})
    expect(alive(victim)).toBe(true)
    expect(alive(reused)).toBe(true)
    const listed = json(await runCast(['sessions', '--json', '--all'], {env: h.env}))
    expect(listed.sessions.find((s: any) => s.native_id === sid(1)).reason).not.toBe('killed')
    expect(listed.sessions.find((s: any) => s.native_id === sid(2)).reason).toBe('killed')
    const alone = await runCast(['kill', sid(1), '--grace', '0'], {env: h.env})
    expect(alone.code).toBe(5)
    expect(alone.stderr).toContain('It stays in the inbox.')
    const human = await runCast(['kill', sid(2), '--grace', '0'], {env: h.env})
    expect(human.stdout).toContain(`pid ${reused} not signalled: pid ${reused} started at`)
  })

  it('never cast itself or one of its ancestors', async () => {
    writeSession(h, {cwd: proj, n: 1})
    // The test runner is an ancestor of every cast it starts.
    registry(h, String(process.pid), {cwd: proj, pid: process.pid, sessionId: sid(1), startedAt: startedAtOf(process.pid)})

    const dry = json(await runCast(['kill', sid(1), '--dry-run', '--json'], {env: h.env}))
    const r = await runCast(['kill', sid(1), '--grace', '0'], {env: h.env})

    expect(dry.killed[0]).toMatchObject({
      refused: [{pid: process.pid, why: `pid ${process.pid} is cast itself or one of its ancestors`}],
      signalled: [],
    })
    // Nothing signalled while the process lives: refused in one line, and the session stays in the inbox.
    expect(r.code).toBe(5)
    expect(r.stderr).toContain(
      `was not killed: its process is live but nothing could be signalled (pid ${process.pid}: pid ${process.pid} is cast itself`,
    )
    const listed = json(await runCast(['sessions', '--json', '--all'], {env: h.env}))
    expect(listed.counts.killed).toBe(0)
    expect(listed.sessions[0]).toMatchObject({live: true})
    expect(listed.sessions[0].reason).not.toBe('killed')
  })

  it('of two sessions, the one it can signal is killed and the live one it cannot stays, with exit 5', async () => {
    const victim = spawnProc('exec sleep 302')
    await waitFor(() => alive(victim))
    writeSession(h, {cwd: proj, n: 1})
    registry(h, String(victim), {cwd: proj, pid: victim, sessionId: sid(1), startedAt: startedAtOf(victim)})
    writeSession(h, {cwd: proj, n: 2})
    registry(h, String(process.pid), {cwd: proj, pid: process.pid, sessionId: sid(2), startedAt: startedAtOf(process.pid)})

    const r = await runCast(['kill', sid(1), sid(2), '--grace', '0', '--json'], {env: h.env})

    expect(r.code).toBe(5)
    expect(json(r).killed).toHaveLength(1)
    expect(json(r).killed[0]).toMatchObject({signalled: [victim]})
    expect(r.stderr).toContain(`was not killed`)
    await waitFor(() => !alive(victim))
    const listed = json(await runCast(['sessions', '--json', '--all'], {env: h.env}))
    expect(listed.counts.killed).toBe(1)
    expect(listed.sessions.find((s: any) => s.native_id === sid(2))).toMatchObject({live: true})
    expect(listed.sessions.find((s: any) => s.native_id === sid(2)).reason).not.toBe('killed')
  })

  it("walks only the verified process's descendants, never the rest of its process group; --dry-run first signals nothing", async () => {
    // One process group: a leader with an unrelated child, and the "agent" (a child of the
    // leader) with a child of its own.
    const leader = spawnProc('sleep 303 & sh -c "sleep 304 & wait" & wait')
    // The agent once it has exec'd: a child forked but not yet exec'd still has the leader's
    // command line, which also holds 'sleep 304' (under load the wait then found the wrong child).
    const agent = await waitFor(
      () => childrenOf(leader).find((p) => fs.readFileSync(`/proc/${p}/cmdline`, 'utf8') === 'sh\0-c\0sleep 304 & wait\0') ?? null,
    )
    const agentChild = await waitFor(() => childrenOf(agent)[0] ?? null)
    const sibling = childrenOf(leader).find((p) => p !== agent)!
    writeSession(h, {cwd: proj, n: 1})
    registry(h, String(agent), {cwd: proj, pid: agent, sessionId: sid(1), startedAt: startedAtOf(agent)})

    const dry = await runCast(['kill', sid(1), '--dry-run'], {env: h.env})
    expect(dry.code).toBe(0)
    expect(dry.stdout).toContain(`dry run: would send SIGTERM to pids ${agent}, ${agentChild}`)
    expect([leader, sibling, agent, agentChild].every(alive)).toBe(true)
    expect(json(await runCast(['sessions', '--json', '--all'], {env: h.env})).counts.killed).toBe(0)

    const r = await runCast(['kill', sid(1), '--grace', '3s', '--json'], {env: h.env})

    expect(r.code).toBe(0)
    expect(json(r).killed[0]).toMatchObject({pgid: null, pid: agent, processes: 2, signal: 'SIGTERM', signalled: [agent, agentChild]})
    await waitFor(() => (!alive(agent) && !alive(agentChild)) || null, 10_000)
    expect(alive(leader)).toBe(true)
    expect(alive(sibling)).toBe(true)
  })
})

describe('cast send: text is data, panes need evidence', () => {
  let h: TempHome
  let server: TmuxServer
  let env: Record<string, string>
  let proj: string
  const SID = '5e1f0000-0000-4000-8000-00000000c001'

  beforeEach(() => {
    h = makeHome()
    proj = makeProject(h.dir)
    writeFakeConfig(h.castHome)
    server = startTmux({...h.env, FAKE_DELAY_MS: '100'})
    env = {...h.env, ...server.env}
  })
  afterEach(() => {
    server.kill()
    h.cleanup()
  })

  // A read polled until it holds: in the test process (test/helpers/run-command.ts), not a child per poll.
  const settled = () =>
    waitFor(async () => {
      const s = json(await runCommand(['state', 'show', SID, '--json'], {env}))
      return s.state === 'needs_input' && s.reason === 'settled' ? s : null
    })
  const offline = (): void =>
    writeFile(
      claudeTranscriptPath(h.home, proj, SID),
      claudeLines({at: new Date(Date.now() - 60_000), cwd: proj, prompt: 'Start', sessionId: SID}),
    )

  it('control bytes (a bracketed-paste end marker, Ctrl-C, CR) and more than 64 KB are refused with exit 2, nothing typed', async () => {
    const pane = fakeInWindow(server, {cwd: proj, prompt: 'Start', sessionId: SID})
    await settled()
    const hostile = ['first line\n\u001b[201~\nrm -rf ~', 'stop \u0003 now', 'one\rtwo', 'bell \u0007']

    const results = []
    for (const m of hostile) results.push(await runCast(['send', SID, m], {env}))
    const stdin = await runCast(['send', SID, '-'], {env, input: 'pasted \u001b[201~ escape\n'})
    const big = await runCast(['send', SID, '-'], {env, input: 'x'.repeat(64 * 1024 + 1)})
    const limit = await runCast(['send', SID, '-', '--json'], {env, input: 'y'.repeat(64 * 1024 + 1)})

    expect(results.map((r) => r.code)).toEqual([2, 2, 2, 2])
    expect(results[0]!.stderr).toContain('ESC (an escape sequence, e.g. a bracketed-paste end marker)')
    expect(stdin.code).toBe(2)
    expect(big.code).toBe(2)
    expect(big.stderr).toContain('is 65537 bytes; cast sends at most 65536 (64 KB)')
    expect(json(limit).error.exit_code).toBe(2)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(userTexts(h.home, proj, SID)).toEqual(['Start'])
    expect(server.tmux(['capture-pane', '-p', '-t', pane])).not.toMatch(/rm -rf|stop|two|bell|xxxx/)
  })

  it('a message beginning with "-" reaches a headless resume as text, after "--"', async () => {
    offline()
    const message = '--dangerously-skip-permissions -p --output-format json'

    const r = await runCast(['send', '--json', SID, '--', message], {env})

    expect(r.code, r.stderr).toBe(0)
    expect(json(r).route).toBe('headless')
    await waitFor(
      () => userTexts(h.home, proj, SID).includes(message) || null,
      30_000,
      () => JSON.stringify(userTexts(h.home, proj, SID)),
    )
    expect(userTexts(h.home, proj, SID)).toEqual(['Start', message])
  })

  it('a configured template without "--" before the message is refused for a message beginning with "-"; an id outside the agent\'s syntax is never passed on', async () => {
    offline()
    const fake = JSON.parse(fs.readFileSync(path.join(h.castHome, 'config.json'), 'utf8'))
    fake.agents.claude.resume = fake.agents.claude.resume.filter((a: string) => a !== '--')
    fs.writeFileSync(path.join(h.castHome, 'config.json'), JSON.stringify(fake))

    const dash = await runCast(['send', SID, '--', '-rf'], {env})
    const bad = 'not-a-session-id'
    writeFile(
      claudeTranscriptPath(h.home, proj, bad),
      claudeLines({at: new Date(Date.now() - 60_000), cwd: proj, prompt: 'Other', sessionId: bad}),
    )
    const odd = await runCast(['send', bad, 'hello'], {env})

    expect(dash.code).toBe(5)
    expect(dash.stderr).toContain('put "--" before {prompt}')
    expect(odd.code).toBe(5)
    expect(odd.stderr).toContain('"not-a-session-id" is not a claude_code session id')
    expect(fs.existsSync(path.join(h.castHome, 'runs'))).toBe(false)
  })

  it('a pane the agent left, now held by another program: nothing typed into that program', async () => {
    // The pane's shell runs the agent, then (once the agent is gone) `cat`, which would take any keys as its input.
    const caught = path.join(h.dir, 'caught')
    const pane = server
      .tmux([
        'new-window',
        '-d',
        '-P',
        '-F',
        '#{pane_id} #{pane_pid}',
        '-t',
        'base:',
        '-c',
        proj,
        '--',
        'sh',
        '-c',
        `'${process.execPath}' '${FAKE_CLAUDE}' --session-id ${SID} Start; exec cat > '${caught}'`,
      ])
      .trim()
    const [paneId, shellPid] = [pane.split(' ')[0]!, Number(pane.split(' ')[1])]
    await settled()
    const agent = await waitFor(() => childrenOf(shellPid)[0] ?? null)
    process.kill(agent, 'SIGKILL')
    // The same pane, now `cat` in the foreground.
    await waitFor(() => (fs.existsSync(caught) && fs.readFileSync(`/proc/${shellPid}/comm`, 'utf8').trim() === 'cat') || null)

    const r = await runCast(['send', SID, 'secret for the agent'], {env})

    await new Promise((resolve) => setTimeout(resolve, 1000))
    // Never typed into the pane the agent left: cat saw nothing and the pane shows nothing of it.
    expect(fs.readFileSync(caught, 'utf8')).toBe('')
    expect(server.tmux(['capture-pane', '-p', '-t', paneId])).not.toContain('secret for the agent')
    // What happened instead is said: a headless resume of the session (exit 0), or a refusal (exit 5).
    expect([0, 5]).toContain(r.code)
    if (r.code === 5) expect(r.stderr).not.toBe('')
  })

  it('one session live in two panes: exit 5, nothing typed in either', async () => {
    const a = fakeInWindow(server, {cwd: proj, prompt: 'Start', sessionId: SID})
    await settled()
    const b = fakeInWindow(server, {cwd: proj, prompt: 'Again', sessionId: SID})
    await waitFor(() => userTexts(h.home, proj, SID).includes('Again') || null)
    await waitFor(() => /Done: Again/.test(server.tmux(['capture-pane', '-p', '-t', b])) || null)

    const r = await runCast(['send', SID, 'Which one?'], {env})

    expect(r.code).toBe(5)
    expect(r.stderr).toMatch(/is in 2 tmux panes \(%\d+ .*, %\d+ .*\): cast will not guess/)
    expect(r.stderr).toContain(a)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(userTexts(h.home, proj, SID)).not.toContain('Which one?')
  })

  it("a process two sessions claim (a shared daemon) ties neither to its pane; a helper under another session's process does not either", async () => {
    // Pane 1 runs a "TUI" (sh) with a "daemon" (sleep) under it.
    const out = server
      .tmux(['new-window', '-d', '-P', '-F', '#{pane_id} #{pane_pid}', '-t', 'base:', '--', 'sh', '-c', 'sleep 600 & wait'])
      .trim()
    const [pane, tuiPid] = [out.split(' ')[0]!, Number(out.split(' ')[1])]
    const daemon = await waitFor(() => childrenOf(tuiPid)[0] ?? null)
    const ids = ['5e1f0000-0000-4000-8000-00000000d001', '5e1f0000-0000-4000-8000-00000000d002', '5e1f0000-0000-4000-8000-00000000d003']
    for (const id of ids)
      writeFile(
        claudeTranscriptPath(h.home, proj, id),
        claudeLines({at: new Date(Date.now() - 60_000), cwd: proj, prompt: `task ${id.slice(-1)}`, sessionId: id}),
      )
    // Sessions 2 and 3 both claim the daemon; session 1 claims the TUI.
    registry(h, '900011', {cwd: proj, pid: tuiPid, sessionId: ids[0], startedAt: startedAtOf(tuiPid), status: 'idle'})
    registry(h, '900012', {cwd: proj, pid: daemon, sessionId: ids[1], startedAt: startedAtOf(daemon), status: 'idle'})
    registry(h, '900013', {cwd: proj, pid: daemon, sessionId: ids[2], startedAt: startedAtOf(daemon), status: 'idle'})
    const screen = (): string => server.tmux(['capture-pane', '-p', '-t', pane])

    const shared = await runCast(['send', ids[1]!, 'for two'], {env})
    fs.rmSync(path.join(h.home, '.claude', 'sessions', '900013.json'))
    const under = await runCast(['send', ids[1]!, 'under one'], {env})
    const own = await runCast(['send', ids[0]!, 'for one', '--json'], {env})

    expect(shared.code).toBe(5)
    expect(shared.stderr).toContain(`pid ${daemon} is claimed by 1 other session too`)
    expect(under.code).toBe(5)
    expect(under.stderr).toContain('not in a tmux pane')
    expect(screen()).not.toMatch(/for two|under one/)
    expect(own.code, own.stderr).toBe(0)
    expect(json(own)).toMatchObject({pane, route: 'tmux'})
    await waitFor(() => /for one/.test(screen()) || null, 10_000, screen)
  })
})
