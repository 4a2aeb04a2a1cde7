/**
 * The caller's own session, found as `cast state` finds it (src/lib/state/state-declare.ts findOwn:
 * CAST_SESSION, the agent's own variable, else the nearest claimed ancestor of the calling
 * process, whose claims the caller's sync just brought up to date), and the declaration it makes.
 * Never a session id a model typed: `cast mcp` passes no id here.
 */
import {DECLARED_STATUSES, type DeclaredStatus} from '../../core/model/types.js'
import type {Store} from '../../core/store/store.js'
import {EXIT} from '../base/exit-codes.js'
import {MAX_STATE_TEXT} from '../state/state-args.js'
import {CALLER_VARIABLES, type Caller, declare, findOwn, type Found} from '../state/state-declare.js'
import {deviceName, type Env} from '../home/env.js'
import type {SessionJson} from '../views/json-shapes.js'
import {CastError} from './errors.js'

/** `cast state --json`: the session after the declaration, and how it was found. */
export interface StateJson {
  session: SessionJson
  via: string
}

/** The calling process as state-declare.ts describes a caller: its variables and its parent. */
export function callerOf(env: Env, ppid = process.ppid): Caller {
  const vars = Object.fromEntries(CALLER_VARIABLES.map((k) => [k, env[k]]))
  return {device: deviceName(env), ppid, vars}
}

/** The caller's session (the store synced first), or NOT_FOUND saying why none is. */
export function findOwnSessionOf(store: Store, caller: Caller, session?: string): Found {
  const found = findOwn(store, session, caller, true)
  if (found !== null) return found
  throw new CastError(
    session
      ? `No single session matches "${session}".`
      : 'Cannot tell which session this is: no CAST_SESSION, no agent variable, and no known agent process above this one (exactly one session must claim it).',
    EXIT.NOT_FOUND,
    ['Run it from inside the agent (its MCP configuration or its shell), or export CAST_SESSION=<id>.'],
  )
}

/** Refuse control characters other than newline and tab: a state line is read by people. */
export function checkPlainText(text: string, what: string): void {
  // eslint-disable-next-line no-control-regex
  const bad = /[\u0000-\u0008\u000b-\u001f\u007f\u0080-\u009f\u202a-\u202e\u2066-\u2069]/.exec(text)
  if (bad) {
    const code = bad[0].codePointAt(0)!
    throw new CastError(
      `${what} holds a control character (U+${code.toString(16).padStart(4, '0')}) at offset ${bad.index}; nothing was written.`,
      EXIT.USAGE,
    )
  }
}

/** The declaration's arguments checked as the command checks them; a USAGE error otherwise. */
export function checkDeclaration(status: string, text: string): {status: DeclaredStatus; text: string} {
  if (!(DECLARED_STATUSES as readonly string[]).includes(status))
    throw new CastError(`"${status}" is not a status; use ${DECLARED_STATUSES.join(', ')}.`, EXIT.USAGE)
  const t = text.replace(/\r\n/g, '\n').replace(/\s+$/, '')
  if (t.length > MAX_STATE_TEXT)
    throw new CastError(`The state text is ${t.length} characters; keep it under ${MAX_STATE_TEXT}.`, EXIT.USAGE)
  checkPlainText(t, 'The state text')
  if (status === 'dormant' && t.trim() === '')
    throw new CastError('status dormant needs text that names the wake (what will wake you, and when).', EXIT.USAGE)
  return {status: status as DeclaredStatus, text: t}
}

/** Declare for the found session; returns what `cast state --json` prints. */
export async function declareFor(
  store: Store,
  env: Env,
  found: Found,
  decl: {status: DeclaredStatus; text: string},
  caller: Caller,
  me: string,
  now: number,
): Promise<StateJson> {
  declare(store, found, {json: true, session: undefined, status: decl.status, text: decl.text}, caller, now)
  const {setDeclaredMark} = await import('../ingest/turn-marks.js')
  setDeclaredMark(env, found.agent, found.nativeId, decl.status !== 'working')
  const {sessionJson} = await import('../views/views.js')
  return {session: sessionJson(store.loadSessions([found.id])[0]!, me, now), via: found.via}
}
