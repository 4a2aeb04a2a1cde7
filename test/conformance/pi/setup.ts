/**
 * One pi 0.73.1 home for the conformance suite: a HOME whose `~/.pi/agent/models.json` names a
 * custom `openai-completions` provider at the mock's base URL, `settings.json` making it the
 * default, a project folder, a private tmux server, a CAST_HOME beside it, and a `cast` on the
 * agent's PATH (the CAST_TEST_ROOT build) so the agent can run `cast state`.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {BIN} from '../../helpers/cli.js'
import {castEnv} from '../harness/cast.js'
import type {Mock} from '../harness/mock/server.js'
import {type AgentPane, descendants, Tmux} from '../harness/tmux.js'
import {agentBin, agentVersion} from '../harness/agent-bin.js'

export const PI_BIN = agentBin('pi')
export const PI_VERSION = agentVersion('@mariozechner/pi-coding-agent')

export interface PiHome {
  readonly dir: string
  readonly home: string
  readonly proj: string
  readonly tmux: Tmux
  /** The environment cast runs in (`castEnv(home, tmux.env)`). */
  readonly cast: Record<string, string>
  /** The environment pi runs in. */
  readonly env: Record<string, string>
  /** Start the TUI in a new pane (in `cwd`, default the project) and wait for its editor. */
  tui(opts?: {cwd?: string; args?: readonly string[]}): Promise<AgentPane>
  /** `pi -p PROMPT` as a child process of the test (no tmux), its output collected. */
  headless(prompt: string): {child: ChildProcess; out: () => string; done: Promise<number | null>}
  /** Every session file pi wrote. */
  files(): string[]
  /** Parsed lines of the one session file (or of `file`). */
  entries(file?: string): any[]
  cleanup(): void
}

const homes = new Set<PiHome>()
const children = new Set<ChildProcess>()

export function makePiHome(name: string, mock: Mock): PiHome {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cast-conf-pi-${name}-`))
  const home = path.join(dir, 'home')
  const proj = path.join(dir, 'proj')
  const agentDir = path.join(home, '.pi', 'agent')
  const bin = path.join(dir, 'bin')
  for (const d of [agentDir, proj, bin]) fs.mkdirSync(d, {recursive: true})
  fs.writeFileSync(
    path.join(agentDir, 'models.json'),
    JSON.stringify({
      providers: {
        mock: {
          api: 'openai-completions',
          apiKey: 'mock-key',
          baseUrl: `${mock.url}/v1`,
          compat: {supportsDeveloperRole: false, supportsReasoningEffort: false},
          models: [{id: 'mock-model', reasoning: false}],
        },
      },
    }),
  )
  fs.writeFileSync(
    path.join(agentDir, 'settings.json'),
    JSON.stringify({defaultModel: 'mock-model', defaultProvider: 'mock', enableInstallTelemetry: false}),
  )
  // `cast` as the agent's shell finds it: the build under test.
  fs.writeFileSync(path.join(bin, 'cast'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`, {mode: 0o755})
  const tmux = Tmux.start(path.join(dir, 'tmux'), `pi-${name}`)
  const cast = castEnv(home, tmux.env)
  const env: Record<string, string> = {
    CAST_HOME: cast.CAST_HOME!,
    CAST_USER: cast.CAST_USER!,
    HOME: home,
    LANG: 'C.UTF-8',
    PATH: `${bin}:${path.dirname(process.execPath)}:${path.dirname(PI_BIN)}:/usr/local/bin:/usr/bin:/bin`,
    PI_OFFLINE: '1',
    PI_SKIP_VERSION_CHECK: '1',
  }
  const sessionsDir = path.join(agentDir, 'sessions')
  const files = (): string[] => {
    const out: string[] = []
    const walk = (d: string): void => {
      let list: fs.Dirent[] = []
      try {
        list = fs.readdirSync(d, {withFileTypes: true})
      } catch {
        return
      }

      for (const e of list) {
        const p = path.join(d, e.name)
        if (e.isDirectory()) walk(p)
        else if (e.name.endsWith('.jsonl')) out.push(p)
      }
    }

    walk(sessionsDir)
    return out.sort()
  }

  const h: PiHome = {
    cast,
    cleanup() {
      homes.delete(h)
      tmux.stop()
      fs.rmSync(dir, {force: true, recursive: true})
    },
    dir,
    entries(file) {
      const f = file ?? files()[0]
      if (!f) return []
      return fs
        .readFileSync(f, 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l))
    },
    env,
    files,
    headless(prompt) {
      let out = ''
      const child = spawn(PI_BIN, ['-p', prompt], {cwd: proj, env, stdio: ['ignore', 'pipe', 'pipe']})
      children.add(child)
      child.stdout!.on('data', (c) => (out += String(c)))
      child.stderr!.on('data', (c) => (out += String(c)))
      const done = new Promise<number | null>((resolve) => child.on('exit', (code) => (children.delete(child), resolve(code))))
      return {child, done, out: () => out}
    },
    home,
    proj,
    tmux,
    async tui(opts = {}) {
      const pane = tmux.open([PI_BIN, ...(opts.args ?? [])], {cwd: opts.cwd ?? proj, env})
      // The editor's status line names the model once pi is ready for input.
      await tmux.waitFor(pane, /pi v0\.73\.1[\s\S]*mock-model/, 60_000)
      return pane
    },
  }
  homes.add(h)
  return h
}

/** Kill every pi this file started (panes' trees and headless children). For afterAll. */
export function killAll(): void {
  for (const c of children) {
    for (const p of descendants(c.pid ?? 0)) kill(p)
    kill(c.pid ?? 0)
  }

  for (const h of [...homes]) h.cleanup()
}

export function kill(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (pid <= 1) return
  try {
    process.kill(pid, signal)
  } catch {
    // gone
  }
}

/** Lines of entries as `role/stopReason` for messages, the entry type otherwise. */
export function shape(entries: readonly any[]): string[] {
  return entries.map((e) => (e.type === 'message' ? `${e.message.role}${e.message.stopReason ? `/${e.message.stopReason}` : ''}` : e.type))
}
