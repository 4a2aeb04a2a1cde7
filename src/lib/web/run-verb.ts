/**
 * `cast web`'s verbs through the one verb runner (src/lib/verbs/index.ts), in this process, as the
 * page's person: the same handlers, and so the same rules (cast send's and approve's safety
 * checks, the triage plans, the undo history, the team's remote-verb path), as the CLI. The result
 * is the verb's JSON; a refusal becomes the JSON error envelope (docs/contract.md) with the
 * runner's own line and exit code. Runs are serialised, one verb at a time, in the order asked.
 */
import type {Config} from '@oclif/core'

import type {Store} from '../../core/store/store.js'
import type {VerbName} from '../../core/model/verbs.js'
import {type ErrorEnvelope, errorEnvelope} from '../cli/errors.js'
import {EXIT} from '../base/exit-codes.js'
import type {Env} from '../home/env.js'
import type {RunnerVerb, VerbResult} from '../verbs/index.js'

export type VerbOutcome = {readonly ok: true; readonly json: unknown} | ({readonly ok: false} & ErrorEnvelope)

/** Who acts and on which store: the server's own. */
export interface WebVerbContext {
  readonly store: Store
  readonly env: Env
  readonly me: string
  readonly clock: () => number
}

let queue: Promise<unknown> = Promise.resolve()

function serial<T>(job: () => Promise<T>): Promise<T> {
  const run = queue.then(job)
  queue = run.catch(() => undefined)
  return run
}

export function outcome(r: VerbResult): VerbOutcome {
  if (r.ok && r.exit === EXIT.OK) return {json: r.json, ok: true}
  if (r.ok) return {ok: false, ...errorEnvelope(r.warnings[0] ?? r.lines[0] ?? `exit ${r.exit}`, r.exit)}
  return {ok: false, ...errorEnvelope(r.line, r.exit, [...r.hints])}
}

/** A catalog verb, or one of the runner's other verbs, with its input as data; `noWait`: a teammate's session, followed by the page. */
export function runWebVerb(
  ctx: WebVerbContext,
  name: RunnerVerb,
  input: unknown,
  o: {noWait?: boolean; recorded?: boolean} = {},
): Promise<VerbOutcome> {
  return serial(async () => {
    const {runVerbData} = await import('../verbs/index.js')
    const r = await runVerbData({...ctx, sync: true, team: true, wait: o.noWait ? {'no-wait': true} : {}}, name, input)
    // An answer recorded but not delivered (the agent is not running) is the page's answer all the
    // same: the card shows it answered and the JSON says it was not delivered; the CLI exits non-zero.
    if (o.recorded && r.ok) return {json: r.json, ok: true}
    return outcome(r)
  })
}

/** The page's catalog verb on one session: its value, the state the page drew, a hold (Ctrl+Enter). */
export function runCatalogVerb(
  ctx: WebVerbContext,
  name: VerbName,
  o: {session: string; value?: string; expect?: string; queue?: boolean; noWait?: boolean},
): Promise<VerbOutcome> {
  return serial(async () => {
    const {catalogCall, runVerbData} = await import('../verbs/index.js')
    const {CastError} = await import('../base/cast-error.js')
    let call: ReturnType<typeof catalogCall>
    try {
      call = catalogCall(name, o)
    } catch (error) {
      if (error instanceof CastError) return {ok: false, ...errorEnvelope(error.message, error.exit)}
      throw error
    }

    return outcome(await runVerbData({...ctx, sync: true, team: true, wait: o.noWait ? {'no-wait': true} : {}}, call.name, call.input))
  })
}

/**
 * The command lines the server still names as argv (the presence, an answer, a choice): each goes
 * to its runner verb; `presence` (no verb: it writes no session) runs its command in-process.
 */
export function runInProcess(config: Config, args: readonly string[], ctx?: WebVerbContext): Promise<VerbOutcome> {
  const [a, b, ...rest] = args
  if (ctx && a === 'choose' && b !== undefined)
    return runWebVerb(ctx, 'choose', {answers: rest.map((x) => x.split(',').map(Number)), session: b})
  if (ctx && a === 'decide' && b === 'answer' && rest.length === 2)
    return runWebVerb(ctx, 'answer', {card: rest[0], choice: rest[1]}, {recorded: true})
  return serial(() => runCommand(config, args))
}

interface Capturing {
  logJson(json: unknown): void
  log(...args: unknown[]): void
  catch(err: Error): Promise<unknown>
  _run(): Promise<unknown>
}

/** `cast presence …` in this process (it changes no session: no runner verb), its JSON captured. */
async function runCommand(config: Config, args: readonly string[]): Promise<VerbOutcome> {
  const {classifyError} = await import('../cli/errors.js')
  const {castHome} = await import('../home/env.js')
  const found = args[0] === 'presence' ? config.findCommand('presence') : undefined
  if (!found) return {ok: false, ...errorEnvelope(`Unknown command: ${args[0] ?? ''}.`, EXIT.USAGE)}
  const Command = (await found.load()) as unknown as new (argv: string[], config: Config) => Capturing
  const command = new Command(['--json', ...args.slice(1)], config)
  const got: {json: unknown; failed: ErrorEnvelope | null} = {failed: null, json: null}
  command.logJson = (value: unknown) => {
    got.json = value
  }

  command.log = () => undefined
  command.catch = (err: Error) => {
    const c = classifyError(err, castHome(process.env))
    if (c.kind !== 'exit') got.failed = errorEnvelope(c.message, c.exit, c.suggestions)
    else if (c.exit !== 0) got.failed = errorEnvelope(`cast presence stopped (exit ${c.exit}).`, c.exit)
    return Promise.resolve()
  }

  await command._run()
  return got.failed ? {ok: false, ...got.failed} : {json: got.json, ok: true}
}
