/**
 * Run a cast command inside the test process, as `bin/run.js` would run it in a child: the
 * command classes of src/commands (dist/ only for a private build named by CAST_TEST_ROOT), the
 * same oclif entry (`run` then, on an error, oclif's `handle`) over ROOT's manifest (after
 * `npm run build`), with the run's own environment, working folder and stdin, and its
 * stdout, stderr and exit code captured. From source, the file reader runs inline rather than in
 * its worker thread and no backfill process starts (src/core/ingest/read-worker.ts,
 * src/lib/ingest/ingest.ts need the built modules); spawned runs (cli.ts) still cover both. It saves the 0.3-0.5 s of Node and oclif start-up that
 * every spawned command costs (issue 12 point 6).
 *
 * What a child gives for free is set up and taken down around each run:
 * - process.env is replaced by exactly the run's environment (as execFile's `env` does), and
 *   restored after;
 * - process.cwd() is the run's `cwd`;
 * - stdin is a pipe carrying `input` (or nothing), stdout and stderr are pipes (not TTYs);
 * - process.exitCode is read as the exit code and reset; process.exit() during a run ends the
 *   run with that code instead of the test process.
 *
 * Runs are serialised (one at a time per test process): the environment and stdio are global.
 * A test that needs two cast commands at once (a waiter and the command that ends its wait), a
 * signal, a TTY, a watch stream, or a command run from inside an agent's process tree spawns
 * the waiting one with test/helpers/cli.ts instead.
 *
 * Module-level caches in src/ that could carry one run's environment into the next are keyed by
 * what they read (the config file's text, the Gemini folder, the identity's environment).
 */
import type {Command} from '@oclif/core'
import fs from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'
import {Readable} from 'node:stream'

import {ROOT, type RunResult} from './cli.js'

export type {RunResult} from './cli.js'

// @oclif/core as the built commands load it (from ROOT's node_modules), so its classes and its
// Exit hook are the ones the commands use.
const requireFromRoot = createRequire(path.join(ROOT, 'package.json'))
const oclif = requireFromRoot('@oclif/core') as typeof import('@oclif/core')
const oclifHandle = requireFromRoot('@oclif/core/handle') as {handle(err: Error): Promise<void>; Exit: {exit(code?: number): void}}

type Config = Awaited<ReturnType<typeof oclif.Config.load>>
let config: Promise<Config> | undefined

/** The oclif Config of ROOT, loaded once per test file (each file runs in its own process). */
function loadConfig(): Promise<Config> {
  config ??= oclif.Config.load(ROOT).then((c) => (FROM_SOURCE ? fromSource(c) : c))
  return config
}

/**
 * The command classes come from src/ (through vitest's TypeScript transform, like the test
 * files' own imports of src/), not from dist/, unless CAST_TEST_ROOT names a private build to
 * test. oclif still reads the commands' ids, flags and help from ROOT's manifest
 * (oclif.manifest.json, written by `npm run build`); only the class it runs is the source one.
 */
const FROM_SOURCE = !process.env.CAST_TEST_ROOT
const SRC_COMMANDS = path.join(ROOT, 'src', 'commands')

/** The source file of a command id: `snooze:sweep` is src/commands/snooze/sweep.ts, `schedule` src/commands/schedule/index.ts. */
function sourceOf(id: string): string {
  const base = path.join(SRC_COMMANDS, ...id.split(':'))
  return fs.existsSync(`${base}.ts`) ? `${base}.ts` : path.join(base, 'index.ts')
}

/** Make the root plugin load each command's class from its source file, set up as oclif sets up a loaded class. */
function fromSource(c: Config): Config {
  const root = [...c.plugins.values()].find((p) => p.isRoot)
  if (!root) throw new Error(`no root plugin in ${ROOT}`)
  const loadFromManifest = root.findCommand.bind(root)
  root.findCommand = async (id: string, opts: {must?: boolean} = {}) => {
    const file = sourceOf(id)
    if (!fs.existsSync(file)) return loadFromManifest(id, opts as {must: true})
    const cmd = ((await import(file)) as {default: Command.Class}).default
    Object.assign(cmd, {id, isESM: true, plugin: root, relativePath: path.relative(ROOT, file).split(path.sep)})
    return cmd
  }

  return c
}

/** The class `cast ID` runs in this process (the source one, unless CAST_TEST_ROOT is set). */
export async function commandClass(id: string): Promise<Command.Class | undefined> {
  return (await loadConfig()).findCommand(id)?.load()
}

/** Thrown in place of process.exit() during a run, so the run ends and the test process stays. */
class InProcessExit extends Error {
  constructor(readonly exitCode: number) {
    super(`process.exit(${exitCode})`)
  }
}

let queue: Promise<unknown> = Promise.resolve()

export interface InProcessOptions {
  readonly env: Record<string, string>
  readonly input?: string
  readonly cwd?: string
}

/** `cast ARGS` in this process; resolves like runCast (test/helpers/cli.ts) with stdout, stderr and the exit code. */
export function runCommand(args: readonly string[], options: InProcessOptions): Promise<RunResult> {
  const result = queue.then(() => runOne(args, options))
  queue = result.catch(() => {})
  return result
}

interface Saved {
  restore(): void
}

/** Replace an own property of an object for the run; restore exactly what was there (or its absence). */
function override(target: object, key: string, value: unknown): Saved {
  const before = Object.getOwnPropertyDescriptor(target, key)
  Object.defineProperty(target, key, {configurable: true, enumerable: before?.enumerable ?? true, value, writable: true})
  return {
    restore() {
      if (before) Object.defineProperty(target, key, before)
      else delete (target as Record<string, unknown>)[key]
    },
  }
}

/** Collect what is written to a stream: its `write` captured, its TTY-ness hidden (a pipe). */
function capture(stream: NodeJS.WriteStream): {text(): string; saved: Saved[]} {
  const chunks: Buffer[] = []
  const write = (
    chunk: string | Uint8Array,
    encoding?: BufferEncoding | ((err?: Error | null) => void),
    cb?: (err?: Error | null) => void,
  ): boolean => {
    const done = typeof encoding === 'function' ? encoding : cb
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8') : Buffer.from(chunk))
    if (done) process.nextTick(done)
    return true
  }

  return {
    saved: [
      override(stream, 'write', write),
      override(stream, 'isTTY', false),
      override(stream, 'columns', undefined),
      override(stream, 'rows', undefined),
    ],
    text: () => Buffer.concat(chunks).toString('utf8'),
  }
}

function setEnv(env: Record<string, string | undefined>): void {
  for (const k of Object.keys(process.env)) delete process.env[k]
  for (const [k, v] of Object.entries(env)) if (v !== undefined) process.env[k] = v
}

function exitCodeOf(value: unknown): number {
  if (value === undefined || value === null || value === '') return 0
  const n = Number(value)
  return Number.isInteger(n) ? n : 1
}

async function runOne(args: readonly string[], options: InProcessOptions): Promise<RunResult> {
  const cfg = await loadConfig()
  const savedEnv = {...process.env}
  const savedCwd = process.cwd()
  const savedExitCode = process.exitCode
  const savedExit = process.exit
  const savedHandleExit = oclifHandle.Exit.exit
  const stdin = Readable.from(options.input === undefined || options.input === '' ? [] : [Buffer.from(options.input)])
  Object.assign(stdin, {isTTY: false})
  const stdinSaved = override(process, 'stdin', stdin)
  const out = capture(process.stdout)
  const err = capture(process.stderr)
  let code: number
  try {
    setEnv(options.env)
    if (options.cwd) process.chdir(options.cwd)
    process.exitCode = undefined
    process.exit = ((c?: number | string | null) => {
      throw new InProcessExit(exitCodeOf(c ?? process.exitCode))
    }) as typeof process.exit
    try {
      // bin/run.js: execute() = run(argv, dir), then handle(error) on a throw.
      await oclif.run([...args], cfg)
      code = exitCodeOf(process.exitCode)
    } catch (error) {
      if (error instanceof InProcessExit) {
        code = error.exitCode
      } else {
        let exited: number | undefined
        oclifHandle.Exit.exit = (c = 0) => {
          exited ??= c
        }

        await oclifHandle.handle(error as Error)
        code = exited ?? 1
      }
    }
  } finally {
    oclifHandle.Exit.exit = savedHandleExit
    process.exit = savedExit
    process.exitCode = savedExitCode
    for (const s of [...out.saved, ...err.saved]) s.restore()
    stdinSaved.restore()
    stdin.destroy()
    process.chdir(savedCwd)
    setEnv(savedEnv)
  }

  return {code, stderr: err.text(), stdout: out.text()}
}
