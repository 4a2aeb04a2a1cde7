/**
 * Run a cast command in this process, as `cast ARGS --json` would in a child, for `cast web`:
 * the same command class (src/commands/), so every check it makes (cast send's and approve's
 * safety rules in src/lib/agents/deliver.ts and src/lib/agents/dialog.ts, the triage plans, the undo history,
 * the team's remote-verb path) applies unchanged. What the command would print as JSON is
 * captured instead, and its error becomes the JSON error envelope (docs/contract.md). Runs are
 * serialised: commands read process.env and set process.exitCode.
 */
import type {Config} from '@oclif/core'

import {castHome} from '../home/env.js'
import {classifyError, type ErrorEnvelope, errorEnvelope} from '../cli/errors.js'
import {EXIT} from '../base/exit-codes.js'

export type VerbOutcome = {readonly ok: true; readonly json: unknown} | ({readonly ok: false} & ErrorEnvelope)

let queue: Promise<unknown> = Promise.resolve()

/** `cast ARGS --json`, in this process, one at a time. */
export function runInProcess(config: Config, args: readonly string[]): Promise<VerbOutcome> {
  const run = queue.then(() => runOne(config, args))
  queue = run.catch(() => undefined)
  return run
}

/** The command an argv names ("decide answer …" is the topic command decide:answer) and the rest. */
function commandOf(config: Config, args: readonly string[]): {id: string; rest: string[]} | null {
  const [a, b] = args
  if (a !== undefined && b !== undefined && config.findCommand(`${a}:${b}`)) return {id: `${a}:${b}`, rest: args.slice(2)}
  if (a !== undefined && config.findCommand(a)) return {id: a, rest: args.slice(1)}
  return null
}

interface Capturing {
  logJson(json: unknown): void
  log(...args: unknown[]): void
  catch(err: Error): Promise<unknown>
  _run(): Promise<unknown>
}

async function runOne(config: Config, args: readonly string[]): Promise<VerbOutcome> {
  const found = commandOf(config, args)
  if (!found) return {ok: false, ...errorEnvelope(`Unknown command: ${args[0] ?? ''}.`, EXIT.USAGE)}
  const Command = (await config.findCommand(found.id)!.load()) as unknown as new (argv: string[], config: Config) => Capturing
  // --json before the arguments: after a "--" it would be message text.
  const command = new Command(['--json', ...found.rest], config)
  let json: unknown = null
  let failed: ErrorEnvelope | null = null
  command.logJson = (value: unknown) => {
    json = value
  }

  command.log = () => undefined
  command.catch = (err: Error) => {
    const c = classifyError(err, castHome(process.env))
    if (c.kind === 'exit') {
      if (c.exit !== 0) failed = errorEnvelope(`cast ${found.id} stopped (exit ${c.exit}).`, c.exit)
    } else failed = errorEnvelope(c.message, c.exit, c.suggestions)
    return Promise.resolve()
  }

  const exitCode = process.exitCode
  try {
    await command._run()
  } catch (error) {
    failed = errorEnvelope((error as Error).message, EXIT.FAILURE)
  } finally {
    // A command that reported through process.exitCode (a remote verb's refusal) without throwing.
    const set = process.exitCode
    process.exitCode = exitCode
    if (!failed && typeof set === 'number' && set !== 0)
      failed = errorEnvelope(refusalText(json) ?? `cast ${found.id} failed (exit ${set}).`, set)
  }

  return failed ? {ok: false, ...failed} : {json, ok: true}
}

/** The line a command's JSON gives for a refusal it reported without an error (a remote verb's result). */
function refusalText(json: unknown): string | null {
  if (json === null || typeof json !== 'object') return null
  const o = json as Record<string, unknown>
  for (const k of ['error', 'message', 'result', 'line']) if (typeof o[k] === 'string') return o[k]
  const r = o['result'] as Record<string, unknown> | null | undefined
  return r && typeof r === 'object' && typeof r['error'] === 'string' ? r['error'] : null
}
