/**
 * cast notify's other backends, as a user configures them: tmux display-message on an attached
 * client (a real tmux client on a pseudo-terminal, via script(1)), and a custom command.
 */
import {type ChildProcess, spawn, spawnSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {startTmux, type TmuxServer, waitFor} from '../fakes/agents.js'
import {
  claudeLines,
  claudeTranscriptPath,
  killStarted,
  makeHome,
  runCast,
  startCast,
  type TempHome,
  waitForWatcher,
  writeFile,
} from '../helpers/cli.js'

const CWD = '/src/app'
const SID = 'abababab-1111-4222-8333-000000000001'
let h: TempHome
beforeEach(() => {
  h = makeHome()
})
afterEach(() => {
  killStarted()
  h.cleanup()
})

const file = (): string => claudeTranscriptPath(h.home, CWD, SID)
const ask = (question: string): void => {
  fs.appendFileSync(
    file(),
    JSON.stringify({
      cwd: CWD,
      message: {
        content: [{id: 'toolu_b1', input: {questions: [{question}]}, name: 'AskUserQuestion', type: 'tool_use'}],
        id: 'msg_b1',
        model: 'claude-opus-4',
        role: 'assistant',
        type: 'message',
      },
      sessionId: SID,
      timestamp: new Date().toISOString(),
      type: 'assistant',
      uuid: 'ab1',
    }) + '\n',
  )
}

async function prepared(): Promise<void> {
  writeFile(file(), claudeLines({at: new Date(Date.now() - 5000), cwd: CWD, prompt: 'Pick a colour', sessionId: SID, settled: false}))
  expect((await runCast(['sessions'], {env: h.env})).code).toBe(0)
}

describe('cast notify backends', () => {
  const haveScript = spawnSync('script', ['--version'], {stdio: 'ignore'}).status === 0
  let server: TmuxServer | null = null
  let client: ChildProcess | null = null
  afterEach(() => {
    client?.kill('SIGKILL')
    client = null
    server?.kill()
    server = null
  })

  it.skipIf(!haveScript)("tmux: a display-message on every attached client of the user's tmux servers", async () => {
    server = startTmux(h.env)
    const env = {...h.env, ...server.env}
    const screen = path.join(h.dir, 'client.log')
    // A real client on a pseudo-terminal; what tmux draws (the status line too) lands in the log.
    // stdin a pipe kept open: script(1) ends its session on EOF.
    client = spawn('script', ['-qfc', 'tmux attach -t base', screen], {
      env: {...env, LANG: 'C.UTF-8', TERM: 'xterm'},
      stdio: ['pipe', 'ignore', 'ignore'],
    })
    await waitFor(() => server!.tmux(['list-clients', '-F', '#{client_name}']).trim() !== '' || null, 20_000)
    await prepared()
    const n = startCast(['notify', '--json', '--backend', 'tmux'], env)
    await waitForWatcher(h.castHome)
    ask('Red or blue?')
    const line = JSON.parse(await n.nextLine())

    expect(line, JSON.stringify(line)).toMatchObject({delivered: [{backend: 'tmux', ok: true}], summary: 'Claude asked a question'})
    await waitFor(
      () => /cast: Claude asked a question . Pick a colour/.test(fs.readFileSync(screen, 'utf8')) || null,
      20_000,
      () => fs.readFileSync(screen, 'utf8').slice(-2000),
    )
    await n.stop()
  })

  it.skipIf(!haveScript)('tmux: an OSC 52 or CSI sequence in a title never reaches the attached terminal', async () => {
    server = startTmux(h.env)
    const env = {...h.env, ...server.env}
    const screen = path.join(h.dir, 'client.log')
    client = spawn('script', ['-qfc', 'tmux attach -t base', screen], {
      env: {...env, LANG: 'C.UTF-8', TERM: 'xterm'},
      stdio: ['pipe', 'ignore', 'ignore'],
    })
    await waitFor(() => server!.tmux(['list-clients', '-F', '#{client_name}']).trim() !== '' || null, 20_000)
    // The tmux line is the sentence and the body's first line, the title: the title attacks.
    const title = 'Paste \u001B]52;c;cHduZWQ=\u0007 \u001B[2J here #{pane_id}'
    writeFile(file(), claudeLines({at: new Date(Date.now() - 5000), cwd: CWD, prompt: title, sessionId: SID, settled: false}))
    expect((await runCast(['sessions'], {env: h.env})).code).toBe(0)
    const n = startCast(['notify', '--json', '--backend', 'tmux'], env)
    await waitForWatcher(h.castHome)
    ask('Red or blue?')
    const line = JSON.parse(await n.nextLine())

    expect(line.delivered).toEqual([{backend: 'tmux', error: null, ok: true}])
    await waitFor(
      () => /Paste \]52;c;cHduZWQ= \[2J here #\{pane_id\}/.test(fs.readFileSync(screen, 'utf8')) || null,
      20_000,
      () => fs.readFileSync(screen, 'utf8').slice(-2000),
    )
    expect(fs.readFileSync(screen, 'utf8')).not.toContain('\u001B]52')
    await n.stop()
  })

  it('command: notify.command runs with the fields filled in and the notification as JSON on stdin', async () => {
    const out = path.join(h.dir, 'command.out')
    const script = `const fs=require('fs');let s='';process.stdin.on('data',d=>s+=d).on('end',()=>fs.appendFileSync(${JSON.stringify(out)},JSON.stringify({argv:process.argv.slice(1),stdin:JSON.parse(s)})+'\\n'))`
    fs.mkdirSync(h.castHome, {recursive: true})
    fs.writeFileSync(
      path.join(h.castHome, 'config.json'),
      JSON.stringify({
        notify: {backends: ['command'], command: [process.execPath, '-e', script, '{summary}', '{kind}', '{urgency}', '{body}']},
      }),
    )
    await prepared()
    const n = startCast(['notify', '--json'], h.env)
    await waitForWatcher(h.castHome)
    ask('Red or blue?')
    const line = JSON.parse(await n.nextLine())
    const got = JSON.parse(fs.readFileSync(out, 'utf8').trim())

    expect(line.delivered).toEqual([{backend: 'command', error: null, ok: true}])
    expect(got.argv).toEqual(['Claude asked a question', 'question', 'normal', 'Pick a colour\nRed or blue?'])
    expect(got.stdin).toMatchObject({
      body: 'Pick a colour\nRed or blue?',
      kind: 'question',
      summary: 'Claude asked a question',
      urgency: 'normal',
    })
    expect(got.stdin.sessions).toHaveLength(1)
    await n.stop()
  })

  it('a bad notify config is exit 2 naming the key', async () => {
    fs.mkdirSync(h.castHome, {recursive: true})
    fs.writeFileSync(path.join(h.castHome, 'config.json'), JSON.stringify({notify: {backends: ['pager']}}))
    const r = await runCast(['notify'], {env: h.env})
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/notify\.backends/)
  })
})
