/**
 * The process scan and the screen sweep over every tmux server (issue 10, "every agent"): an
 * agent without a registry (pi here) is tied to its process by a scan of /proc or by the tmux
 * pane that runs it, on any server the user owns, so a kill -9 reads dead, also when cast never
 * saw the process alive. Real processes (a `pi` that is /bin/sleep under another name), real tmux.
 */
import {execFileSync, spawn, type ChildProcess} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {json, makeHome, runCast, type TempHome} from '../helpers/cli.js'

const homes: TempHome[] = []
const children: ChildProcess[] = []
const servers: {name: string; tmpdir: string}[] = []
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL')
  for (const s of servers.splice(0)) {
    try {
      execFileSync('tmux', ['-L', s.name, 'kill-server'], {env: {...process.env, TMUX: '', TMUX_TMPDIR: s.tmpdir}, stdio: 'ignore'})
    } catch {
      /* gone */
    }
  }

  for (const h of homes.splice(0)) h.cleanup()
})

const ID = '019a0000-0000-7000-8000-00000000abcd'

/** A pi session in `cwd` whose turn is not over: the model asked for a tool and got its result. */
function piSession(h: TempHome, cwd: string, id = ID, settled = false): void {
  const base = Date.now()
  const t = (s: number): string => new Date(base + s * 10).toISOString()
  const dir = path.join(h.home, '.pi', 'agent', 'sessions', `--${cwd.replace(/^\//, '').replace(/[/\\:]/g, '-')}--`)
  fs.mkdirSync(dir, {recursive: true})
  const lines = [
    {cwd, id, timestamp: t(0), type: 'session', version: 3},
    {
      id: 'a1',
      message: {content: [{text: 'Run the slow build', type: 'text'}], role: 'user', timestamp: base + 10},
      parentId: null,
      timestamp: t(1),
      type: 'message',
    },
    {
      id: 'a2',
      message: settled
        ? {
            api: 'openai-completions',
            content: [{text: 'Done.', type: 'text'}],
            model: 'm',
            provider: 'mock',
            role: 'assistant',
            stopReason: 'stop',
            timestamp: base + 20,
            usage: {},
          }
        : {
            api: 'openai-completions',
            content: [{arguments: {command: 'make'}, id: 'c1', name: 'bash', type: 'toolCall'}],
            model: 'm',
            provider: 'mock',
            role: 'assistant',
            stopReason: 'toolUse',
            timestamp: base + 20,
            usage: {},
          },
      parentId: 'a1',
      timestamp: t(2),
      type: 'message',
    },
  ]
  fs.writeFileSync(path.join(dir, `${t(0).replace(/[:.]/g, '-')}_${id}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
}

/** A process named `pi` (argv[0] and comm), running in `cwd`. */
function fakePi(h: TempHome): string {
  const bin = path.join(h.dir, 'bin')
  fs.mkdirSync(bin, {recursive: true})
  const p = path.join(bin, 'pi')
  fs.copyFileSync('/bin/sleep', p)
  fs.chmodSync(p, 0o755)
  return p
}

async function pi(h: TempHome, env: Record<string, string>): Promise<Record<string, any>> {
  const r = await runCast(['sessions', '--json', '--all'], {env})
  expect(r.code, r.stderr).toBe(0)
  const s = json<{sessions: Record<string, any>[]}>(r).sessions.find((x) => x.native_id === ID)
  expect(s, r.stdout).toBeDefined()
  return s!
}

const hasTmux = (() => {
  try {
    execFileSync('tmux', ['-V'], {stdio: 'ignore'})
    return true
  } catch {
    return false
  }
})()

describe('process scan', () => {
  it('a session no process runs reads dead on cast’s first look (kill -9 before cast saw it)', async () => {
    const h = makeHome()
    homes.push(h)
    const cwd = path.join(h.dir, 'proj')
    fs.mkdirSync(cwd)
    piSession(h, cwd)
    const s = await pi(h, {...h.env, TMUX_TMPDIR: path.join(h.dir, 'tmux')})
    expect([s.state, s.reason]).toEqual(['needs_input', 'dead'])
    expect(s.live).toBe(false)
  })

  it('the one pi process in the session’s folder runs it: working while it lives, dead after kill -9', async () => {
    const h = makeHome()
    homes.push(h)
    const cwd = path.join(h.dir, 'proj')
    fs.mkdirSync(cwd)
    const bin = fakePi(h)
    const child = spawn(bin, ['1000'], {cwd, stdio: 'ignore'})
    children.push(child)
    await new Promise((r) => setTimeout(r, 300))
    piSession(h, cwd) // written after the process started, as pi writes it
    const env = {...h.env, TMUX_TMPDIR: path.join(h.dir, 'tmux')}
    const live = await pi(h, env)
    expect([live.state, live.reason, live.live, live.pid]).toEqual(['working', 'turn_pending', true, child.pid])
    const explained = await runCast(['explain', live.id], {env})
    expect(explained.stdout).toContain(`pid ${child.pid}`)
    child.kill('SIGKILL')
    await new Promise((r) => child.once('exit', r))
    const dead = await pi(h, env)
    expect([dead.state, dead.reason, dead.live]).toEqual(['needs_input', 'dead', false])
  })

  it('a pi in another folder, or started after the session’s last write, does not run it', async () => {
    const h = makeHome()
    homes.push(h)
    const cwd = path.join(h.dir, 'proj')
    const other = path.join(h.dir, 'other')
    fs.mkdirSync(cwd)
    fs.mkdirSync(other)
    piSession(h, cwd)
    const bin = fakePi(h)
    const elsewhere = spawn(bin, ['1000'], {cwd: other, stdio: 'ignore'})
    await new Promise((r) => setTimeout(r, 6000)) // the slack between a start and a write is 5 s
    const later = spawn(bin, ['1000'], {cwd, stdio: 'ignore'}) // started after the session's last line
    children.push(elsewhere, later)
    await new Promise((r) => setTimeout(r, 300))
    const s = await pi(h, {...h.env, TMUX_TMPDIR: path.join(h.dir, 'tmux')})
    expect([s.state, s.reason]).toEqual(['needs_input', 'dead'])
  })

  it.skipIf(!hasTmux)('a pane on a non-default tmux server ties the session to its process; killing it reads dead', async () => {
    const h = makeHome()
    homes.push(h)
    const cwd = path.join(h.dir, 'proj')
    fs.mkdirSync(cwd)
    const bin = fakePi(h)
    const tmpdir = path.join(h.dir, 'tmux')
    fs.mkdirSync(tmpdir, {mode: 0o700})
    const name = `cast-scan-${process.pid}`
    servers.push({name, tmpdir})
    const tenv = {...process.env, TMUX: '', TMUX_TMPDIR: tmpdir}
    execFileSync('tmux', ['-L', name, '-f', '/dev/null', 'new-session', '-d', '-x', '120', '-y', '30', '-c', cwd, `exec ${bin} 1000`], {
      env: tenv,
    })
    const panePid = Number(
      execFileSync('tmux', ['-L', name, 'list-panes', '-a', '-F', '#{pane_pid}'], {encoding: 'utf8', env: tenv}).trim(),
    )
    await new Promise((r) => setTimeout(r, 300))
    piSession(h, cwd)
    const env = {...h.env, TMUX_TMPDIR: tmpdir}
    const live = await pi(h, env)
    expect([live.state, live.live, live.pid]).toEqual(['working', true, panePid])
    const explained = await runCast(['explain', live.id], {env})
    expect(explained.stdout, explained.stdout).toMatch(/tmux pane %\d+ runs pid/)
    process.kill(panePid, 'SIGKILL')
    await new Promise((r) => setTimeout(r, 300))
    const dead = await pi(h, env)
    expect([dead.state, dead.reason]).toEqual(['needs_input', 'dead'])
  })

  it.skipIf(!hasTmux)(
    'after its process dies, an older pi in the same folder (at its prompt on another session) does not take the session over',
    async () => {
      const h = makeHome()
      homes.push(h)
      const cwd = path.join(h.dir, 'proj')
      fs.mkdirSync(cwd)
      const bin = fakePi(h)
      const tmpdir = path.join(h.dir, 'tmux')
      fs.mkdirSync(tmpdir, {mode: 0o700})
      const name = `cast-scan2-${process.pid}`
      servers.push({name, tmpdir})
      const tenv = {...process.env, TMUX: '', TMUX_TMPDIR: tmpdir}
      const tmux = (...a: string[]): string => execFileSync('tmux', ['-L', name, ...a], {encoding: 'utf8', env: tenv})
      tmux('-f', '/dev/null', 'new-session', '-d', '-x', '120', '-y', '30', '-c', cwd, `exec ${bin} 1001`)
      await new Promise((r) => setTimeout(r, 300))
      piSession(h, cwd, '019a0000-0000-7000-8000-0000000000aa', true) // the older pi answered its session A
      await new Promise((r) => setTimeout(r, 7000)) // beyond the 5 s slack (and /proc start times are off by up to 1 s)
      const paneB = tmux('new-window', '-d', '-P', '-F', '#{pane_pid}', '-c', cwd, `exec ${bin} 1002`).trim()
      await new Promise((r) => setTimeout(r, 300))
      piSession(h, cwd) // the newer pi runs session B, mid-turn
      const env = {...h.env, TMUX_TMPDIR: tmpdir}
      const live = await pi(h, env)
      if (process.env.DEBUG_SCAN)
        console.log(
          execFileSync('node', ['/tmp/dbg/t2.mjs', path.join(tmpdir, `tmux-${process.getuid!()}`, name), h.castHome], {encoding: 'utf8'}),
        )
      expect([live.state, live.live, live.pid]).toEqual(['working', true, Number(paneB)])
      process.kill(Number(paneB), 'SIGKILL')
      await new Promise((r) => setTimeout(r, 300))
      const dead = await pi(h, env)
      expect([dead.state, dead.reason, dead.live]).toEqual(['needs_input', 'dead', false])
    },
  )

  it('a session at rest is live while its pi runs, and quitting pi is not a crash', async () => {
    const h = makeHome()
    homes.push(h)
    const cwd = path.join(h.dir, 'proj')
    fs.mkdirSync(cwd)
    const bin = fakePi(h)
    const child = spawn(bin, ['1000'], {cwd, stdio: 'ignore'})
    children.push(child)
    await new Promise((r) => setTimeout(r, 300))
    piSession(h, cwd, ID, true)
    const env = {...h.env, TMUX_TMPDIR: path.join(h.dir, 'tmux')}
    const live = await pi(h, env)
    expect([live.state, live.reason, live.live, live.pid]).toEqual(['needs_input', 'settled', true, child.pid])
    child.kill('SIGTERM')
    await new Promise((r) => child.once('exit', r))
    const quit = await pi(h, env)
    expect([quit.state, quit.reason, quit.live]).toEqual(['needs_input', 'settled', false])
  })
})
