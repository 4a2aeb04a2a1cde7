/**
 * cast inbox in a real tmux, driven with send-keys and read with capture-pane, over real agent
 * processes (the fake Claude Code agent: real transcript, registry and permission dialog).
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {fakeInWindow, makeProject, startTmux, type TmuxServer, userTexts, waitFor, writeFakeConfig} from '../fakes/agents.js'
import {BIN, json, makeHome, type TempHome} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'

const A = '5e1f0000-0000-4000-8000-00000000b001'
const B = '5e1f0000-0000-4000-8000-00000000b002'

describe('cast inbox', () => {
  let h: TempHome
  let server: TmuxServer
  let env: Record<string, string>
  let proj: string

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
  const state = async (sid: string): Promise<{state: string; reason: string}> =>
    json(await runCommand(['state', 'show', sid, '--json'], {env}))
  const until = (sid: string, s: string, r?: string) =>
    waitFor(
      async () => {
        const st = await state(sid)
        return st.state === s && (r === undefined || st.reason === r) ? st : null
      },
      60_000,
      () => `${sid} never ${s}:${r}`,
    )
  const screen = (pane: string): string => server.tmux(['capture-pane', '-p', '-t', pane])
  const shows = (pane: string, re: RegExp, timeoutMs = 30_000) =>
    waitFor(
      () => (re.test(screen(pane)) ? screen(pane) : null),
      timeoutMs,
      () => `screen never matched ${re}:\n${screen(pane)}`,
    )
  const keys = (pane: string, ...k: string[]) => server.tmux(['send-keys', '-t', pane, ...k])
  const type = (pane: string, text: string) => server.tmux(['send-keys', '-t', pane, '-l', text])
  /** The pane a person would see in the base session now: its active window's active pane. */
  const activePane = (): string => server.tmux(['display-message', '-p', '-t', 'base:', '#{pane_id}']).trim()

  const openInbox = (extra: Record<string, string> = {}): string => {
    const vars = Object.entries({...env, TERM: 'xterm-256color', ...extra}).flatMap(([k, v]) => ['-e', `${k}=${v}`])
    const pane = server.tmux(['new-window', '-P', '-F', '#{pane_id}', '-t', 'base:', ...vars, '--', process.execPath, BIN, 'inbox']).trim()
    return pane
  }

  it('approve, reply, snooze and jump to the pane, live, from the keyboard', async () => {
    const paneA = fakeInWindow(server, {cwd: proj, prompt: 'tool: make build', sessionId: A})
    const paneB = fakeInWindow(server, {cwd: proj, prompt: 'write the changelog', sessionId: B})
    await until(A, 'needs_input', 'approval')
    await until(B, 'needs_input', 'settled')
    const inbox = openInbox({NO_COLOR: '1'})
    // The same sections as cast sessions; the cursor on the first row (the approval, in QUESTIONS).
    let s = await shows(inbox, /QUESTIONS \(1\)[\s\S]*› ○ needs input:approval\s+\w+\s+tool: make build/)
    expect(s).toMatch(/NEEDS INPUT \(1\)[\s\S]*write the changelog/)
    expect(s).toMatch(/approve Bash\?/)
    expect(s.split('\n')[1]).toMatch(/^needs input 2 · done 0 · working 0/)

    // a: approves in the agent's own dialog (cast approve's rules); the tool runs.
    keys(inbox, 'a')
    await shows(inbox, /ok: /)
    await waitFor(() => userTexts(h.home, proj, A).includes('[answer] ran make build') || null)
    await until(A, 'needs_input', 'settled')
    await shows(inbox, /NEEDS INPUT \(2\)/)

    // / filters; r replies (cast send: typed into the agent as its next turn).
    keys(inbox, '/')
    type(inbox, 'changelog')
    keys(inbox, 'Enter')
    s = await shows(inbox, /filter: changelog/)
    expect(s).not.toMatch(/make build/)
    keys(inbox, 'r')
    await shows(inbox, /reply to write the changelog: /)
    type(inbox, 'and the release notes')
    keys(inbox, 'Enter')
    await waitFor(
      () => userTexts(h.home, proj, B).includes('and the release notes') || null,
      30_000,
      () => JSON.stringify(userTexts(h.home, proj, B)) + screen(inbox),
    )
    await until(B, 'needs_input', 'settled')
    await shows(inbox, /^ok: /m, 60_000)

    // s snoozes for a typed duration: the row moves to SNOOZED, live.
    keys(inbox, 's')
    await shows(inbox, /snooze write the changelog for/)
    type(inbox, '2h')
    keys(inbox, 'Enter')
    await until(B, 'dormant', 'snoozed')
    await shows(inbox, /SNOOZED \(1\)/)
    await shows(inbox, /^ok: /m, 60_000)

    // Enter jumps to the agent's pane: its window becomes the one the session shows.
    keys(inbox, '/')
    keys(inbox, 'C-u')
    type(inbox, 'make build')
    keys(inbox, 'Enter')
    await shows(inbox, /filter: make build[\s\S]*› ○ needs input:settled/)
    expect(activePane()).toBe(inbox)
    keys(inbox, 'Enter')
    await waitFor(
      () => activePane() === paneA || null,
      20_000,
      () => `active ${activePane()}, A ${paneA}, B ${paneB}\n${screen(inbox)}`,
    )

    // q quits and gives the terminal back.
    keys(inbox, 'q')
    await waitFor(() => !server.tmux(['list-panes', '-a', '-F', '#{pane_id}']).split('\n').includes(inbox) || null, 20_000)
  })

  it('K kills only after a confirm, u undoes, n / N find the next waiting session, ? shows help; resizes', async () => {
    fakeInWindow(server, {cwd: proj, prompt: 'first task', sessionId: A})
    fakeInWindow(server, {cwd: proj, prompt: 'second task', sessionId: B})
    await until(A, 'needs_input', 'settled')
    await until(B, 'needs_input', 'settled')
    const inbox = openInbox()
    await shows(inbox, /NEEDS INPUT \(2\)/)

    keys(inbox, '?')
    await shows(inbox, /cast inbox: keys/)
    keys(inbox, 'x')
    await shows(inbox, /NEEDS INPUT \(2\)/)

    // n: the next waiting session in this project (wraps); the cursor moves to the other row.
    const first = /› ○ needs input:settled\s+\w+\s+(.+)/.exec(screen(inbox))![1]!.trim()
    keys(inbox, 'n')
    await waitFor(() => {
      const m = /› ○ needs input:settled\s+\w+\s+(.+)/.exec(screen(inbox))
      return m && m[1]!.trim() !== first ? m : null
    })
    keys(inbox, 'N')
    await waitFor(() => (/› ○ needs input:settled\s+\w+\s+(.+)/.exec(screen(inbox))?.[1]?.trim() === first ? true : null))

    // K asks first; anything but y cancels.
    keys(inbox, 'K')
    await shows(inbox, /kill .+\? It tears the agent down \(the transcript stays\)\. \[y\/N\]/)
    keys(inbox, 'n')
    await shows(inbox, /kill cancelled/)
    const target = first === 'first task' ? A : B
    expect((await state(target)).reason).toBe('settled')

    keys(inbox, 'K')
    await shows(inbox, /\[y\/N\]/)
    keys(inbox, 'y')
    await until(target, 'idle', 'killed')
    await shows(inbox, /KILLED \(1\)/)
    // The kill command returns once the process is down (TERM, then KILL after a grace).
    await shows(inbox, /^ok: /m, 60_000)

    // u undoes the kill: the card comes back (the agent stays stopped).
    keys(inbox, 'u')
    await shows(inbox, /ok: undid/)
    await waitFor(async () => ((await state(target)).reason !== 'killed' ? true : null))

    // Resizes: the lines fit the new width.
    server.tmux(['resize-window', '-t', inbox, '-x', '60', '-y', '20'])
    await waitFor(() => {
      const lines = screen(inbox).split('\n')
      // The tally line, longer than 60 cells, is cut to the new width.
      return lines.every((l) => [...l].length <= 60) && lines[1]!.startsWith('needs input') && lines[1]!.endsWith('…') ? true : null
    })
  })
})
