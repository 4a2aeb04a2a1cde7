/**
 * One verb, four front-ends, one answer: `cast approve` on the command line, the `a` key of
 * `cast inbox` in a real tmux, POST /api/verb of `cast web` over HTTP, and the team executor's
 * runner (src/lib/verbs/team-runner.ts castRunner) all go through the verb runner (src/lib/verbs/), so a
 * refusal reads the same line with the same exit code everywhere. Also: keys typed while a verb
 * runs in `cast inbox` are queued, not dropped, and mark done keeps the cursor where it was.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {castId} from '../../src/core/model/ids.js'
import {Store} from '../../src/core/store/store.js'
import {castRunner} from '../../src/lib/verbs/team-runner.js'
import {startTmux, type TmuxServer, waitFor} from '../fakes/agents.js'
import {BIN, json, makeHome, runCast, type TempHome} from '../helpers/cli.js'
import {sid, writeSession} from '../commands/triage-helpers.js'
import {apiSession, startWeb} from '../web/helpers.js'

describe('the verb runner behind every front-end', () => {
  let h: TempHome
  let server: TmuxServer
  const proj = '/home/me/src/app'

  beforeEach(() => {
    h = makeHome()
    server = startTmux(h.env)
  })

  afterEach(() => {
    server.kill()
    h.cleanup()
  })

  const screen = (pane: string): string => server.tmux(['capture-pane', '-p', '-J', '-t', pane])
  const shows = (pane: string, re: RegExp, timeoutMs = 60_000) =>
    waitFor(
      () => (re.test(screen(pane)) ? screen(pane) : null),
      timeoutMs,
      () => `screen never matched ${re}:\n${screen(pane)}`,
    )
  const openInbox = (): string => {
    const vars = Object.entries({...h.env, ...server.env, NO_COLOR: '1', TERM: 'xterm-256color'}).flatMap(([k, v]) => ['-e', `${k}=${v}`])
    return server.tmux(['new-window', '-P', '-F', '#{pane_id}', '-t', 'base:', ...vars, '--', process.execPath, BIN, 'inbox']).trim()
  }

  it('approve with no prompt open: the same line and exit 5 from the command, cast inbox, cast web and the team executor', async () => {
    writeSession(h, {at: Date.now() - 60_000, cwd: proj, n: 1})
    const id = castId('claude_code', sid(1))
    const listed = json(await runCast(['sessions', '--json'], {env: h.env}))
    expect(listed.sessions.map((s: {id: string}) => s.id)).toEqual([id])

    // The command.
    const cli = await runCast(['approve', id], {env: h.env})
    expect(cli.code).toBe(5)
    const line = /cast: (.+)/.exec(cli.stderr)?.[1]?.trim() ?? ''
    expect(line).toMatch(/permission prompt|no verified live process|not running/i)

    // The team executor's runner: in this process, the requester's identity as a parameter.
    const store = new Store(h.castHome)
    try {
      const team = await castRunner(h.env)(store, {args: {}, sessionId: id, verb: 'approve'}, 'ana@example.com')
      expect(team).toMatchObject({result: {error: line, exit: 5}, status: 'refused'})
    } finally {
      store.close()
    }

    // The web server, over HTTP.
    const web = await startWeb(h.env)
    try {
      const {cookie, key} = await apiSession(web)
      expect(cookie).toMatch(/^cast_session_\d+=/)
      const res = await fetch(`${web.base}/api/verb`, {
        body: JSON.stringify({session: id, verb: 'approve'}),
        headers: {'content-type': 'application/json', cookie, origin: web.base, 'x-cast-key': key},
        method: 'POST',
      })
      const body = (await res.json()) as {error: {message: string; exit_code: number}}
      expect(res.status).toBe(409)
      expect(body.error).toMatchObject({exit_code: 5, message: line})
    } finally {
      await web.stop()
    }

    // cast inbox in a real tmux: the a key on the selected row.
    const inbox = openInbox()
    await shows(inbox, /NEEDS INPUT \(1\)/)
    server.tmux(['send-keys', '-t', inbox, 'a'])
    const s = await shows(inbox, /refused \(exit 5\): /)
    const said = /refused \(exit 5\): (.*)/.exec(s)![1]!.trim().replace(/…$/, '')
    expect(said.length).toBeGreaterThan(20)
    expect(line.startsWith(said)).toBe(true)
  })

  it('cast inbox queues keys typed while a verb runs, and mark done leaves the cursor where it was', async () => {
    writeSession(h, {at: Date.now() - 60_000, cwd: proj, n: 1, prompt: 'first task'})
    writeSession(h, {at: Date.now() - 120_000, cwd: proj, n: 2, prompt: 'second task'})
    await runCast(['sessions', '--json'], {env: h.env})
    const inbox = openInbox()
    await shows(inbox, /NEEDS INPUT \(2\)/)
    const selected = (): string | null => /› \S+ [^\n]*?\s{2}\w{7}\s{2}(.+)/.exec(screen(inbox))?.[1]?.trim() ?? null
    const first = await waitFor(selected, 30_000)
    const other = first === 'first task' ? 'second task' : 'first task'

    // e: the row goes to DONE; the cursor stays on the row that takes its place.
    server.tmux(['send-keys', '-t', inbox, 'e'])
    await shows(inbox, /DONE \(1\)/)
    await shows(inbox, /ok: /)
    expect(selected()).toBe(other)

    // p then x at once: pin runs, x waits for it, then stashes the same row.
    server.tmux(['send-keys', '-t', inbox, 'p', 'x'])
    await shows(inbox, /STASHED \(1\)|stashed 1/)
    const after = json(await runCast(['sessions', '--json', '--all'], {env: h.env}))
    const row = after.sessions.find((x: {title: string}) => x.title === other)
    expect(row).toMatchObject({pinned: true})
    expect(row.filing ?? row.bucket).toMatch(/stash/)
  })
})
