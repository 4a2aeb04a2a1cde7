/**
 * Keys reach only the agent: the fake agent runs as a job of an interactive bash in a real tmux
 * pane (the test's own server). Suspended (Ctrl-Z, SIGSTOP), bash has the terminal back and
 * the agent's dialog is still on screen: `cast send`, `approve` and `deny --note` must refuse
 * (exit 5) and type nothing, or the text runs as a shell command. src/lib/agents/foreground.ts.
 */
import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {FAKE_CLAUDE, makeProject, startTmux, type TmuxServer, userTexts, waitFor, writeFakeConfig} from '../fakes/agents.js'
import {json, makeHome, type TempHome} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'

const SID = '5e1f0000-0000-4000-8000-00000000c501'

describe('keys reach only the agent', () => {
  let h: TempHome
  let server: TmuxServer
  let env: Record<string, string>
  let proj: string
  let pwned: string

  beforeEach(() => {
    h = makeHome()
    proj = makeProject(h.dir)
    pwned = path.join(h.dir, 'PWNED')
    writeFakeConfig(h.castHome)
    server = startTmux({...h.env, FAKE_DELAY_MS: '100', PS1: '$ '})
    env = {...h.env, ...server.env}
  })

  afterEach(async () => {
    server.kill()
    // The agents the panes ran end on the server's hangup, a stopped one once it is continued:
    // give them a moment before the folder goes.
    for (let i = 0; ; i++) {
      try {
        h.cleanup()
        break
      } catch (error) {
        if (i >= 20) throw error
        await new Promise((r) => setTimeout(r, 250))
      }
    }
  })

  const screen = (pane: string): string => server.tmux(['capture-pane', '-p', '-t', pane])
  const state = async (): Promise<{state: string; reason: string}> => json(await runCommand(['state', 'show', SID, '--json'], {env}))
  const until = (s: string, r?: string) =>
    waitFor(
      async () => {
        const st = await state()
        return st.state === s && (r === undefined || st.reason === r) ? st : null
      },
      45_000,
      () => `never ${s}:${r}`,
    )

  /** bash in a new window, the fake agent started from it as a foreground job; returns the pane and the agent's pid. */
  async function agentUnderBash(prompt: string): Promise<{pane: string; pid: number}> {
    const pane = server
      .tmux(['new-window', '-d', '-P', '-F', '#{pane_id}', '-t', 'base:', '-c', proj, '--', 'bash', '--norc', '--noprofile', '-i'])
      .trim()
    const shell = Number(server.tmux(['display-message', '-p', '-t', pane, '#{pane_pid}']).trim())
    await waitFor(
      () => /^\$/m.test(screen(pane)) || null,
      20_000,
      () => screen(pane),
    )
    const quote = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`
    server.tmux(['send-keys', '-t', pane, '-l', `${quote(process.execPath)} ${quote(FAKE_CLAUDE)} --session-id ${SID} ${quote(prompt)}`])
    server.tmux(['send-keys', '-t', pane, 'Enter'])
    const pid = await waitFor(() => {
      // ps exits 1 while bash has no child yet.
      let out = ''
      try {
        out = execFileSync('ps', ['-o', 'pid=', '--ppid', String(shell)], {encoding: 'utf8'}).trim()
      } catch {
        return null
      }

      return out === '' ? null : Number(out.split('\n')[0])
    })
    return {pane, pid}
  }

  /** Stop the agent; bash reports the job stopped and has its prompt (and the terminal) back. */
  async function suspend(a: {pane: string; pid: number}): Promise<void> {
    process.kill(a.pid, 'SIGSTOP')
    await waitFor(
      () => /Stopped/.test(screen(a.pane)) || null,
      20_000,
      () => screen(a.pane),
    )
  }

  /** The attack's command did not run: give bash time to run what it received, then look. */
  async function nothingRan(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect(fs.existsSync(pwned)).toBe(false)
  }

  it('send: a suspended agent (Ctrl-Z) exits 5, nothing typed, the shell runs nothing; after fg it works', async () => {
    const a = await agentUnderBash('Start')
    await until('needs_input', 'settled')
    server.tmux(['send-keys', '-t', a.pane, 'C-z'])
    await waitFor(
      () => /Stopped/.test(screen(a.pane)) || null,
      20_000,
      () => screen(a.pane),
    )

    const r = await runCommand(['send', SID, `echo PWNED > ${pwned}`], {env})

    expect(r.code, r.stderr).toBe(5)
    expect(r.stderr).toContain('the agent is suspended; nothing typed')
    await nothingRan()
    expect(screen(a.pane)).not.toContain('echo PWNED')

    server.tmux(['send-keys', '-t', a.pane, '-l', 'fg'])
    server.tmux(['send-keys', '-t', a.pane, 'Enter'])
    await waitFor(() => !/^T/.test(fs.readFileSync(`/proc/${a.pid}/stat`, 'utf8').split(') ')[1]!) || null)
    const ok = await runCommand(['send', SID, 'Carry on'], {env})
    expect(ok.code, ok.stderr).toBe(0)
    await waitFor(() => userTexts(h.home, proj, SID).includes('Carry on') || null)
  })

  it('send: a background job (bash has the terminal, the agent runs) exits 5: not in the foreground', async () => {
    const a = await agentUnderBash('Start')
    await until('needs_input', 'settled')
    // SIGSTOP then SIGCONT: bash keeps the terminal and the agent runs on as a background job.
    await suspend(a)
    process.kill(a.pid, 'SIGCONT')

    const r = await runCommand(['send', SID, `echo PWNED > ${pwned}`], {env})

    expect(r.code, r.stderr).toBe(5)
    expect(r.stderr).toMatch(/the agent is (not in the foreground|suspended); nothing typed/)
    await nothingRan()
  })

  it('approve and deny --note: a suspended agent with its dialog still on screen exits 5, nothing typed', async () => {
    const a = await agentUnderBash('tool: make build')
    await until('needs_input', 'approval')
    await waitFor(
      () => /Do you want to proceed\?/.test(screen(a.pane)) || null,
      20_000,
      () => screen(a.pane),
    )
    await suspend(a)
    expect(screen(a.pane)).toMatch(/Do you want to proceed\?/)

    const approve = await runCommand(['approve', SID], {env})
    const deny = await runCommand(['deny', SID, '--note', `echo PWNED > ${pwned}`], {env})

    expect(approve.code, approve.stderr).toBe(5)
    expect(approve.stderr).toContain('the agent is suspended; nothing typed')
    expect(deny.code, deny.stderr).toBe(5)
    expect(deny.stderr).toContain('the agent is suspended; nothing typed')
    await nothingRan()
    expect(userTexts(h.home, proj, SID)).toEqual(['tool: make build'])
  })
})
