/**
 * Conformance: two Codex TUIs open at once on one CODEX_HOME, served by ONE app-server daemon
 * (the daemon holds both rollouts). Each pane is tied to the thread its TUI created as it started
 * (src/core/ingest/thread-birth.ts; docs/agents/codex.md "Which thread a TUI shows"), so each
 * session has its own pane, approval and send, and a TUI killed reads only its own session gone.
 */
import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import {afterAll, describe, expect, it} from 'vitest'
import {type CastSession, recordFigure, runCast, sessions, until, Watch} from './harness/cast.js'
import {type Mock, startMock, text, tool} from './harness/mock/server.js'
import {BIN} from '../helpers/cli.js'
import {type CodexHome, makeCodexHome, tuiPid} from './codex/setup.js'

const AGENT = 'codex'
const homes: CodexHome[] = []
const mocks: Mock[] = []
const watches: Watch[] = []

afterAll(async () => {
  for (const w of watches) await w.stop()
  for (const h of homes) h.cleanup()
  for (const m of mocks) await m.close()
})

/** The pane the screen sweep tied to a session (`cast explain` lists the screen reading among its files). */
function screenTie(h: CodexHome, nativeId: string): string | null {
  const out = execFileSync(process.execPath, [BIN, 'explain', nativeId], {encoding: 'utf8', env: {...process.env, ...h.cast}})
  return /screen:\/\/tmux\S*\/(%\d+)/.exec(out)?.[1] ?? null
}

const paneOf = (s: CastSession): string | null => (s as CastSession & {pane?: string | null}).pane ?? null
const rowsOf = async (h: CodexHome): Promise<CastSession[]> => (await sessions(h.cast)).filter((s) => s.agent === AGENT)

describe(AGENT, () => {
  it('two_tuis: two TUIs in one folder on one daemon each get their own pane, approval, send and death', async () => {
    const mock = await startMock((req) => {
      if (req.side) return undefined
      const last = req.lastUserText
      if (/^ping one/.test(last)) return text('Pong one.')
      if (/^ping two/.test(last)) return text('Pong two.')
      if (/question one/.test(last)) return text('Answer one.')
      if (req.toolResults > 0) return text('Made it two.')
      if (/question two|again two/.test(last))
        return tool('exec_command', {
          cmd: 'touch ../approved-two',
          justification: 'Write outside the workspace?',
          sandbox_permissions: 'require_escalated',
        })
      return text('Other.')
    })
    mocks.push(mock)
    const h = makeCodexHome('tuis', mock)
    homes.push(h)
    const one = await h.tui(['question one'])
    await h.tmux.waitFor(one, /Answer one\./)
    // The second TUI starts once the first one's thread exists (two started within seconds of each
    // other in one folder stay untied: thread-birth.ts).
    await new Promise((r) => setTimeout(r, 3000))
    const two = await h.tui(['question two'])
    await h.tmux.waitFor(two, /Would you like to run the following command\?/)
    expect(h.tmux.capture(one)).not.toMatch(/Would you like to run/)
    const daemons = new Set(h.rollouts().length === 2 ? [h.daemonPid()] : [])
    expect(daemons.size).toBe(1)

    // Each session: its own state and its own pane.
    const end = Date.now() + 90_000
    let rows: CastSession[] = []
    let a: CastSession | undefined
    let b: CastSession | undefined
    for (;;) {
      rows = await rowsOf(h)
      a = rows.find((x) => x.state === 'needs_input' && x.reason === 'settled')
      b = rows.find((x) => x.state === 'needs_input' && x.reason === 'approval')
      if (rows.length === 2 && a && b && paneOf(a) !== null && paneOf(b) !== null) break
      if (Date.now() > end) throw new Error(`two TUIs: ${JSON.stringify(rows.map((x) => [x.native_id, x.state, x.reason, paneOf(x)]))}`)
      await new Promise((r) => setTimeout(r, 500))
    }

    // Each pane tied to its own thread (the screen sweep's reading names the pane).
    expect(paneOf(a)).toBe(one.id)
    expect(paneOf(b)).toBe(two.id)
    expect(screenTie(h, a.native_id)).toBe(one.id)
    expect(screenTie(h, b.native_id)).toBe(two.id)

    // cast approve on the second: the command runs in the second TUI's turn.
    const ap = await runCast(['approve', b.id], {env: h.cast, timeout: 60_000})
    expect(ap.code, ap.stderr + ap.stdout).toBe(0)
    await h.tmux.waitFor(two, /Made it two\./)
    expect(fs.existsSync(`${h.dir}/approved-two`)).toBe(true)
    expect(h.tmux.capture(one)).not.toMatch(/Made it two\./)
    await until(h.cast, (x) => x.id === b!.id && x.state === 'needs_input' && x.reason === 'settled', 90_000, 'the second settled')

    // cast send to each lands in its own pane.
    const s1 = await runCast(['send', a.id, 'ping one'], {env: h.cast, timeout: 60_000})
    expect(s1.code, s1.stderr).toBe(0)
    await h.tmux.waitFor(one, /Pong one\./)
    const s2 = await runCast(['send', b.id, 'ping two'], {env: h.cast, timeout: 60_000})
    expect(s2.code, s2.stderr).toBe(0)
    await h.tmux.waitFor(two, /Pong two\./)
    expect(h.tmux.capture(two)).not.toMatch(/Pong one\./)
    expect(h.tmux.capture(one)).not.toMatch(/Pong two\./)

    // A second approval in the second TUI, then that TUI killed: only its session reads dead.
    const s3 = await runCast(['send', b.id, 'again two'], {env: h.cast, timeout: 60_000})
    expect(s3.code, s3.stderr).toBe(0)
    await h.tmux.waitFor(two, /Would you like to run the following command\?/)
    await until(h.cast, (x) => x.id === b!.id && x.reason === 'approval', 90_000, 'the second asking again')
    // A watch (cast sessions -w) measures when the dead line comes after the kill.
    const w = new Watch(h.cast)
    watches.push(w)
    await sessions(h.cast)
    await w.ready()
    const from = w.lines.length
    const tui = tuiPid(two.pid)
    const killedAt = Date.now()
    for (const pid of [two.pid, tui]) if (pid !== null) process.kill(pid, 'SIGKILL')
    const line = await w.wait((l) => l.id === b!.id && l.to === 'needs_input' && l.reason === 'dead', 90_000, from)
    const dead = await until(
      h.cast,
      (x) => x.id === b!.id && x.state === 'needs_input' && x.reason === 'dead',
      30_000,
      'the killed TUI dead',
    )
    const other = (await rowsOf(h)).find((x) => x.id === a!.id)
    expect(other?.state).toBe('needs_input')
    expect(other?.reason).toBe('settled')
    expect(screenTie(h, a.native_id)).toBe(one.id)
    expect(paneOf(other!)).toBe(one.id)
    recordFigure(AGENT, 'two_tuis', {dead_ms: line.at - killedAt, reason: dead.reason})
  })
})
