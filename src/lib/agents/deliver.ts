/**
 * Putting a message into a session as its next turn, the one way `cast send`, scheduled
 * deliveries and decision answers all use. It never harms:
 *
 * 0. the text is data: control bytes other than newline and tab, and more than 64 KB, are
 *    refused (exit 2); `--if STATE[:REASON]` is checked at that moment (exit 5);
 * 1. a permission prompt or question dialog open in the store (registry, hooks, screen) on a
 *    session whose process looks live is refused (exit 5), naming the dialog and the verb to use;
 *    with no live process the dialog died with it, and step 4 resumes the session with the
 *    message as the answer;
 * 2. the session has a verified live process (pid and start time equal the claim) in exactly one
 *    tmux pane: the pane is captured right before typing, and a dialog on it is refused the same
 *    way; else the message is typed there, then Enter;
 * 3. a live process cast cannot tie to one pane (none, several, unverified): exit 5, nothing
 *    typed, and no headless resume either (it would fork the conversation);
 * 4. no live process: resume the session headless with the agent's own CLI (its module's resume
 *    template, or the config's `agents.<agent>.resume`), detached,
 *    its output in `$CAST_HOME/runs/`; the id is checked against the agent's id syntax.
 *
 * A delivered message is recorded as a send: it clears a kill, expires a verdict and reads
 * turn_pending until the agent picks it up.
 */
import fs from 'node:fs'
import {hostname} from 'node:os'
import path from 'node:path'

import {pidAlive} from '../../core/ingest/process-table.js'
import {shortId} from '../../core/model/ids.js'
import type {WorkState} from '../../core/model/types.js'
import {claimSchedule, dueScheduleIds, failAbandonedClaims, finishDelivery, getSchedule, type Schedule} from '../../core/store/schedules.js'
import {recentSends, recordSend} from '../../core/store/sends.js'
import type {SessionRow, Store} from '../../core/store/store.js'
import {commandTemplate, fillTemplate, TemplateError} from './agent-commands.js'
import {CastError} from '../base/cast-error.js'
import {type CastConfig, loadConfig} from '../home/config.js'
import {castHome, type Env, homeDir} from '../home/env.js'
import {EXIT} from '../base/exit-codes.js'
import {syncBeforeRead} from '../ingest/ingest.js'
import {checkClaims, dialogRefusal, findPane, paneName, reasonOf, screenDialog, storedDialog} from './dialog.js'
import {checkMessageText} from './message-text.js'
import {captureScreen, typist} from './tmux.js'

export interface SendOptions {
  /** Send only when the session is in one of these states at the moment of sending (else exit 5). */
  readonly ifStates?: readonly WorkState[]
  /** Send only when the session's state (and reason, when given) is one of these (else exit 5). */
  readonly ifMatch?: readonly StateMatch[]
  /** Who the send is recorded as (default: me). */
  readonly who?: string
  /** A note in front of the route in the sends log (`schedule s…`, `decision d…`). */
  readonly cause?: string
  /** Skip the sync before reading (the caller just did one). */
  readonly synced?: boolean
  readonly config?: CastConfig
}

export interface SendResult {
  readonly route: 'tmux' | 'headless'
  /** `tmux %3 (cast:1.0)` or `headless <agent> pid 4242`. */
  readonly via: string
  readonly at: number
  readonly pane: string | null
  readonly pid: number | null
  readonly log: string | null
  /** The session after the send was recorded. */
  readonly row: SessionRow
}

/** `needs_input` or `needs_input:settled`. */
export interface StateMatch {
  readonly state: WorkState
  readonly reason: string | null
}

const HEADLESS_PID = /^(?:.*: )?headless \S+ pid (\d+)/

/** Deliver `message` into session `id` as its next turn, and record it. */
export async function sendMessage(
  store: Store,
  env: Env,
  clock: () => number,
  me: string,
  id: string,
  message: string,
  options: SendOptions = {},
): Promise<SendResult> {
  message = checkMessageText(message)
  if (!options.synced) syncBeforeRead(store, env, clock, me)
  const row = store.loadSessions([id])[0]
  if (!row) throw new CastError(`Session ${shortId(id)} is not in the store.`, EXIT.NOT_FOUND)
  checkIf(row, options)

  const proc = row.facts.process
  const claims = checkClaims(store, row)
  let route: SendResult['route']
  let via: string
  let pane: string | null = null
  let pid: number | null = null
  let log: string | null = null
  const liveByStore = proc !== null && proc.alive && proc.exited === null
  if (claims.verified.length > 0 || liveByStore) {
    // A dialog lives in its process: with a live one, a message typed now would answer it.
    const stored = storedDialog(row)
    if (stored !== null) throw dialogRefusal(row, stored)
    const found = await findPane(store, row, env, claims)
    if (found.pane === null) {
      throw new CastError(
        `Cannot type into session ${shortId(id)}: it ${reasonOf(found, shortId(id))}. Nothing sent; a headless resume is not started either, since its process looks live (it would fork the conversation).`,
        EXIT.REFUSED,
        ['Type the message in its terminal, or stop that process: cast send then resumes the session headless.'],
      )
    }

    // The screen at this moment: a dialog opened since the store last looked takes the keys as an answer.
    const screen = await captureScreen(found.pane, env)
    const shown = screenDialog(env, row.agent, found.pane, screen)
    if (shown !== null) throw dialogRefusal(row, shown)
    await typist({pane: found.pane, pid: found.pid, session: shortId(id)}, env).message(message)
    route = 'tmux'
    pane = found.pane.id
    pid = found.pid
    via = `tmux ${paneName(found.pane)}`
  } else {
    ;({log, pid, via} = await resumeHeadless(store, env, row, message, options))
    route = 'headless'
  }

  const at = clock()
  recordSend(store, {at, message, sessionId: id, via: options.cause ? `${options.cause}: ${via}` : via, who: options.who ?? me})
  return {at, log, pane, pid, route, row: store.loadSessions([id])[0]!, via}
}

/** No live process: resume the session headless with the agent's own resume command (never two at once). */
async function resumeHeadless(
  store: Store,
  env: Env,
  row: SessionRow,
  message: string,
  options: SendOptions,
): Promise<{log: string; pid: number; via: string}> {
  const id = row.id
  const running = runningHeadless(store, id)
  if (running !== null) {
    throw new CastError(
      `A headless run cast started for session ${shortId(id)} (pid ${running}) is still going; a second one would write the same transcript.`,
      EXIT.FAILURE,
      [`Wait for it: cast wait ${shortId(id)} --until needs_input,done, then send again.`],
    )
  }

  const config = options.config ?? (await loadConfig(env))
  const template = commandTemplate(row.agent, 'resume', config)
  if (template === null) {
    throw new CastError(
      `Session ${shortId(id)} has no live process and cast does not know how to resume ${row.agent} sessions.`,
      EXIT.FAILURE,
      [`Set "agents": {"${row.agent}": {"resume": [...argv with {id} and {prompt}]}} in the config.`],
    )
  }

  const cwd = row.facts.cwd !== null && isDir(row.facts.cwd) ? row.facts.cwd : homeDir(env)
  let argv: string[]
  try {
    argv = fillTemplate(template, {cwd, id: row.nativeId, prompt: message}, row.agent)
  } catch (error) {
    if (error instanceof TemplateError)
      throw new CastError(`Cannot resume session ${shortId(id)} headless: ${error.message}. Nothing sent.`, EXIT.REFUSED)
    throw error
  }

  const started = await startDetached(argv, {cwd, env: {...env, CAST_SESSION: id}, logName: `${shortId(id)}-resume`, home: castHome(env)})
  return {log: started.log, pid: started.pid, via: `headless ${row.agent} pid ${started.pid}`}
}

/** --if: the state (and reason) at this moment, else exit 5 and nothing sent. */
function checkIf(row: SessionRow, options: SendOptions): void {
  const wanted: StateMatch[] = [...(options.ifStates ?? []).map((state) => ({reason: null, state})), ...(options.ifMatch ?? [])]
  if (wanted.length === 0) return
  if (wanted.some((w) => w.state === row.state && (w.reason === null || w.reason === row.reason))) return
  const list = wanted.map((w) => (w.reason === null ? w.state : `${w.state}:${w.reason}`)).join(' or ')
  throw new CastError(`Session ${shortId(row.id)} is ${row.state} (${row.reason}), not ${list}: nothing sent.`, EXIT.REFUSED)
}

/** The pid of a headless run cast started for this session that is still alive, if any. */
function runningHeadless(store: Store, id: string): number | null {
  for (const s of recentSends(store, id, 5)) {
    const m = HEADLESS_PID.exec(s.via)
    if (m && pidAlive(Number(m[1]))) return Number(m[1])
  }

  return null
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory()
  } catch {
    return false
  }
}

/**
 * Start a program detached from cast (it outlives this command), output to a log file under
 * `$CAST_HOME/runs/`. Resolves once the process has started; rejects if it cannot start.
 */
export async function startDetached(
  argv: readonly string[],
  o: {cwd: string; env: Env; logName: string; home: string},
): Promise<{pid: number; log: string}> {
  const [file, ...args] = argv
  if (!file) throw new CastError('The agent command is empty.', EXIT.USAGE)
  const dir = path.join(o.home, 'runs')
  fs.mkdirSync(dir, {mode: 0o700, recursive: true})
  const log = path.join(dir, `${o.logName}-${Date.now()}.log`)
  const fd = fs.openSync(log, 'a', 0o600)
  const {spawn} = await import('node:child_process')
  try {
    // No shell: the argv goes to the program as it is.
    const child = spawn(file, args, {cwd: o.cwd, detached: true, env: o.env, stdio: ['ignore', fd, fd]})
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve())
      child.once('error', reject)
    })
    child.unref()
    return {log, pid: child.pid!}
  } catch (error) {
    const e = error as NodeJS.ErrnoException
    const why = e.code === 'ENOENT' ? `${file}: command not found` : e.message
    throw new CastError(`Cannot start ${file}: ${why}`, EXIT.FAILURE)
  } finally {
    fs.closeSync(fd)
  }
}

export interface DeliveryReport {
  readonly id: string
  readonly session_id: string
  readonly message: string
  readonly ok: boolean
  readonly via: string | null
  readonly error: string | null
  /** The next due time of a recurring schedule. */
  readonly next_due_at: string | null
}

/**
 * Deliver every scheduled message that is due, exactly once even when several sweepers (the
 * daemon, `cast snooze sweep`, `cast schedule sweep`) run at the same moment: each row is claimed
 * in an IMMEDIATE transaction before its message goes out. `me` is who runs the sweep.
 */
export async function deliverDueSchedules(store: Store, env: Env, clock: () => number, me: string): Promise<DeliveryReport[]> {
  const host = hostname()
  const claimer = `${host}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`
  const abandoned = (c: string): boolean => {
    const [h, p] = c.split(':')
    return h === host && Number(p) !== process.pid && !pidAlive(Number(p))
  }

  failAbandonedClaims(store, abandoned, clock())
  const due = dueScheduleIds(store, clock())
  if (due.length === 0) return []
  syncBeforeRead(store, env, clock, me)
  const config = await loadConfig(env)
  const out: DeliveryReport[] = []
  for (const id of due) {
    if (!claimSchedule(store, id, claimer, clock())) continue
    const s = getSchedule(store, id)!
    let via: string | null = null
    let error: string | null = null
    try {
      const r = await sendMessage(store, env, clock, me, s.sessionId, s.message, {
        cause: `schedule ${s.id}`,
        config,
        synced: true,
        who: s.createdBy,
      })
      via = r.via
    } catch (error_) {
      error = (error_ as Error).message
    }

    const after = finishDelivery(store, id, claimer, {error, now: clock()})
    out.push({
      error,
      id,
      message: s.message,
      next_due_at: after?.status === 'armed' ? new Date(after.dueAt).toISOString() : null,
      ok: error === null,
      session_id: s.sessionId,
      via,
    })
  }

  return out
}

export interface ScheduleJson {
  id: string
  session_id: string
  short_id: string
  message: string
  due_at: string
  every_ms: number | null
  status: string
  created_at: string
  created_by: string
  delivered_at: string | null
  deliveries: number
  last_error: string | null
}

export function scheduleJson(s: Schedule): ScheduleJson {
  const iso = (t: number | null): string | null => (t === null ? null : new Date(t).toISOString())
  return {
    created_at: iso(s.createdAt)!,
    created_by: s.createdBy,
    deliveries: s.deliveries,
    delivered_at: iso(s.deliveredAt),
    due_at: iso(s.dueAt)!,
    every_ms: s.everyMs,
    id: s.id,
    last_error: s.lastError,
    message: s.message,
    session_id: s.sessionId,
    short_id: shortId(s.sessionId),
    status: s.status,
  }
}
