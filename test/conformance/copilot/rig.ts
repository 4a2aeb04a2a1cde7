/**
 * One GitHub Copilot CLI 1.0.102 under test: its own HOME (the folder pre-trusted in
 * `~/.copilot/config.json`), the project's mock model server reached through Copilot's offline
 * BYOK mode (`COPILOT_OFFLINE=true COPILOT_PROVIDER_BASE_URL=…/v1`, chat completions over SSE),
 * a private tmux server, and cast's environment over the same HOME. A `cast` command on the
 * agent's PATH runs the build under test, so the agent's shell tool can call `cast state`.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {BIN, runCast} from '../../helpers/cli.js'
import {castEnv, type CastSession, sessions, Watch} from '../harness/cast.js'
import {type Mock, type Reply, type Script, sequence, startMock} from '../harness/mock/server.js'
import {type AgentPane, descendants, Tmux} from '../harness/tmux.js'
import {agentBin} from '../harness/agent-bin.js'

export const COPILOT = agentBin('copilot')
export const MODEL = 'gpt-4o'
/** The footer Copilot shows at its prompt (and not while a turn runs). */
export const PROMPT = /← open sidebar · /

export interface RigOptions {
  /** Put the agent's files under `$COPILOT_HOME` (a folder other than ~/.copilot). */
  readonly copilotHome?: boolean
  /** Extra agent arguments (e.g. --allow-all-tools). */
  readonly args?: readonly string[]
  readonly env?: Record<string, string>
  /** Run alone (a latency bound is measured): wait until no other agent of this file runs. */
  readonly exclusive?: boolean
}

export interface Rig {
  readonly dir: string
  readonly home: string
  readonly work: string
  /** Where the agent keeps its state (~/.copilot or $COPILOT_HOME). */
  readonly base: string
  readonly mock: Mock
  readonly tmux: Tmux
  /** cast's environment for this home. */
  readonly env: Record<string, string>
  /** The agent's environment. */
  readonly agentEnv: Record<string, string>
  readonly panes: AgentPane[]
  readonly children: ChildProcess[]
  readonly watches: Watch[]
  /** Start a TUI in a new tmux window; resolves at its prompt. */
  open(args?: readonly string[]): Promise<AgentPane>
  watch(): Watch
  /** Every session folder (it has a workspace.yaml), oldest first. */
  sessionDirs(): string[]
  /** The event types of a session's log, in order. */
  events(dir?: string): {type: string; data: any}[]
  stop(): Promise<void>
}

const rigs = new Set<Rig>()

/** At most this many agents at once in this file (2 shared cores). */
const SLOTS = 3
let busy = 0
const queue: {n: number; go: () => void}[] = []
/** Take n slots (SLOTS: the whole file, for a scenario that measures a latency bound). */
async function acquire(n: number): Promise<void> {
  if (queue.length === 0 && busy + n <= SLOTS) {
    busy += n
    return
  }
  await new Promise<void>((go) => queue.push({go, n}))
}
function release(n: number): void {
  busy -= n
  while (queue.length > 0 && busy + queue[0]!.n <= SLOTS) {
    const next = queue.shift()!
    busy += next.n
    next.go()
  }
}

export async function rig(name: string, script: Script | readonly Reply[], opts: RigOptions = {}): Promise<Rig> {
  const slots = opts.exclusive ? SLOTS : 1
  await acquire(slots)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cast-copilot-${name}-`))
  const home = path.join(dir, 'home')
  const work = path.join(dir, 'work')
  const base = opts.copilotHome ? path.join(dir, 'copilot-home') : path.join(home, '.copilot')
  fs.mkdirSync(work, {recursive: true})
  fs.mkdirSync(base, {recursive: true})
  fs.writeFileSync(
    path.join(base, 'config.json'),
    JSON.stringify({appTipShown: true, firstLaunchAt: '2026-01-01T00:00:00.000Z', trustedFolders: [work]}),
  )
  // `cast` for the agent's shell tool: the build under test.
  const bin = path.join(dir, 'bin')
  fs.mkdirSync(bin)
  fs.writeFileSync(path.join(bin, 'cast'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`, {
    mode: 0o755,
  })
  const mock = await startMock(Array.isArray(script) ? sequence(script) : (script as Script), {model: MODEL})
  const tmux = Tmux.start(path.join(dir, 'tmux'), `cop-${name}`)
  const copilotVars: Record<string, string> = opts.copilotHome ? {COPILOT_HOME: base} : {}
  const env = castEnv(home, {...tmux.env, ...copilotVars})
  const agentEnv: Record<string, string> = {
    CAST_HOME: env.CAST_HOME!,
    CAST_USER: env.CAST_USER!,
    COPILOT_AUTO_UPDATE: 'false',
    COPILOT_MODEL: MODEL,
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_API_KEY: 'mock-key',
    COPILOT_PROVIDER_BASE_URL: `${mock.url}/v1`,
    HOME: home,
    PATH: `${bin}:${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    ...copilotVars,
    ...opts.env,
  }
  const panes: AgentPane[] = []
  const watches: Watch[] = []
  const children: ChildProcess[] = []
  const state = path.join(base, 'session-state')
  const r: Rig = {
    agentEnv,
    base,
    children,
    dir,
    env,
    events(d) {
      const folder = d ?? r.sessionDirs().at(-1)
      if (folder === undefined) return []
      const out: {type: string; data: any}[] = []
      let textBody = ''
      try {
        textBody = fs.readFileSync(path.join(folder, 'events.jsonl'), 'utf8')
      } catch {
        return []
      }
      for (const line of textBody.split('\n')) {
        try {
          const e = JSON.parse(line)
          out.push({data: e.data, type: e.type})
        } catch {
          /* a partial last line */
        }
      }
      return out
    },
    home,
    mock,
    async open(args = []) {
      const pane = tmux.open([COPILOT, ...(opts.args ?? []), ...args], {cwd: work, env: agentEnv})
      panes.push(pane)
      await tmux.waitFor(pane, PROMPT, 90_000)
      return pane
    },
    panes,
    sessionDirs() {
      let names: string[] = []
      try {
        names = fs.readdirSync(state)
      } catch {
        return []
      }
      return names
        .map((n) => path.join(state, n))
        .filter((p) => fs.existsSync(path.join(p, 'workspace.yaml')))
        .sort((a, b) => fs.statSync(path.join(a, 'workspace.yaml')).birthtimeMs - fs.statSync(path.join(b, 'workspace.yaml')).birthtimeMs)
    },
    async stop() {
      if (!rigs.delete(r)) return
      release(slots)
      await Promise.all(watches.map((w) => w.stop()))
      for (const p of panes) killTree(p.pid)
      for (const c of children) if (c.pid !== undefined) killTree(c.pid)
      tmux.stop()
      await mock.close()
      fs.rmSync(dir, {force: true, maxRetries: 3, recursive: true})
    },
    tmux,
    watch() {
      // From the log's start: a turn that ends while the watcher is still catching up is not lost.
      const w = new Watch(env, ['--since', '0'])
      watches.push(w)
      return w
    },
    watches,
    work,
  }
  rigs.add(r)
  return r
}

/** Stop every rig still running (afterAll, also after a failure). */
export async function stopAll(): Promise<void> {
  await Promise.all([...rigs].map((r) => r.stop().catch(() => undefined)))
}

/** kill -9 a process and everything under it. */
export function killTree(pid: number): number[] {
  const all = [...descendants(pid), pid]
  for (const p of all) {
    try {
      process.kill(p, 'SIGKILL')
    } catch {
      /* gone */
    }
  }
  return all
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Run `copilot -p …` headless (not in tmux), as a script would. */
export function headless(
  r: Rig,
  prompt: string,
  args: readonly string[] = [],
): ChildProcess & {output: () => string; done: Promise<number | null>} {
  const child = spawn(COPILOT, ['-p', prompt, '--allow-all-tools', ...args], {
    cwd: r.work,
    env: r.agentEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  r.children.push(child)
  let out = ''
  child.stdout!.on('data', (d) => (out += String(d)))
  child.stderr!.on('data', (d) => (out += String(d)))
  const done = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return Object.assign(child, {done, output: () => out})
}

/** The copilot sessions cast lists (top-level rows). */
export async function copilotSessions(env: Record<string, string>): Promise<CastSession[]> {
  return (await sessions(env)).filter((s) => s.agent === 'copilot' && !s.parent_id)
}

/** Wait until `ok()` holds (files, processes): polls every 250 ms. */
export async function waitUntil(ok: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs
  while (Date.now() < end) {
    if (ok()) return
    await new Promise((r) => setTimeout(r, 250))
  }
  throw new Error(`never saw ${what} within ${timeoutMs} ms`)
}

/** The ask cast shows for the session: `ask` when the JSON has it, else the explain text. */
export async function askOf(env: Record<string, string>, s: CastSession): Promise<string> {
  const ask = s['ask'] as {text?: string} | null | undefined
  if (ask?.text) return ask.text
  return (await runCast(['explain', s.id], {env})).stdout
}
