/**
 * The team executor's way to carry out an action (src/lib/team/executor.ts RunCast): the verb
 * runner in this process, acting locally only, with the requester's identity as its context's `me`.
 * Handed to startTeamSync (src/lib/team/index.ts) by the commands that start the team's loops.
 */
import type {Store} from '../../core/store/store.js'
import {clockFrom} from '../home/env.js'
import type {RunCast} from '../team/executor.js'
import {actionCall, ArgError} from '../team/protocol.js'
import {isRunnerVerb, runVerbData} from './index.js'

type Env = Readonly<Record<string, string | undefined>>

/** The verb runner (src/lib/verbs/index.ts) in this process, with the requester's identity as its context's `me`. */
export function castRunner(env: Env): RunCast {
  return async (store: Store, a, who) => {
    let call: ReturnType<typeof actionCall>
    try {
      call = actionCall(a.verb, a.sessionId, a.args)
    } catch (error) {
      if (!(error instanceof ArgError)) throw error
      return {result: {error: `${a.verb}: ${error.message}; nothing was done`, exit: 2}, status: 'refused'}
    }

    if (!isRunnerVerb(call.name)) return {result: {error: `"${a.verb}" is not an action cast carries out`, exit: 2}, status: 'refused'}
    const r = await runVerbData({clock: clockFrom(env), env, me: who, store, team: false}, call.name, call.input)
    if (r.ok && r.exit === 0) return {result: {exit: 0, output: r.json}, status: 'delivered'}
    // It ran, and part of it did not take (an answer recorded but not delivered): carried out, with why.
    if (r.ok) return {result: {error: r.warnings[0] ?? r.lines[0] ?? `exit ${r.exit}`, exit: r.exit, output: r.json}, status: 'delivered'}
    return {result: {error: r.line, exit: r.exit, output: r.json ?? null}, status: 'refused'}
  }
}
