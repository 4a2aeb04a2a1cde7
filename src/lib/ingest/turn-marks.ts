/**
 * The small files bin/cast-hook reads to answer a hook without opening the database
 * (docs/hooks.md, "The nudge"). All live in `$CAST_HOME/turns/`, one per session:
 *
 *   <agent>.<native_id>.declared   this turn declared done, blocked or dormant (`cast state`)
 *   <agent>.<native_id>.nudged     the hook nudged this turn (it never nudges twice)
 *   <agent>.<native_id>.presence   the id of the last presence notice the session was told
 *
 * and `$CAST_HOME/presence.notice` (the notice's id, then its JSON-escaped text), written by
 * `cast presence`. The hook clears `.declared` and `.nudged` at UserPromptSubmit (a new turn).
 */
import fs from 'node:fs'
import path from 'node:path'

import {castHome, type Env} from '../home/env.js'

/** The guidance a session gets at its start and in the agents' instructions files (bin/cast-hook holds the same sentence). */
export const AGENT_GUIDANCE =
  'This session is tracked by cast, which files every session by who acts next. Before you end a turn, say who acts next with one command: `cast state --status done "<what you delivered>"` when nothing needs the user (they review at leisure), `cast state --status blocked "<what you need from the user>"` when a human must act, or `cast state --status dormant "<what wakes you, and when>"` when a machine will wake you. A declaration covers only the turn that makes it. Do not declare when you end the turn on a question to the user.'

/** What the Stop hook answers once per undeclared turn (bin/cast-hook holds the same sentence). */
export const NUDGE_REASON =
  'cast: this turn ended without saying who acts next. Run exactly one: `cast state --status done "<what you delivered>"` if nothing needs the user, `cast state --status blocked "<what you need from the user>"` if a human must act, or `cast state --status dormant "<what wakes you, and when>"` if a machine will wake you. Then end your turn without repeating your answer.'

const SAFE = /^[A-Za-z0-9_.-]+$/

export function marksDir(env: Env): string {
  return path.join(castHome(env), 'turns')
}

function markPath(env: Env, agent: string, nativeId: string, kind: 'declared' | 'nudged' | 'presence'): string | null {
  if (!SAFE.test(agent) || !SAFE.test(nativeId)) return null
  return path.join(marksDir(env), `${agent}.${nativeId}.${kind}`)
}

/** `cast state`: a rest declaration (done, blocked, dormant) sets the marker; working or clear takes it away. */
export function setDeclaredMark(env: Env, agent: string, nativeId: string, declared: boolean): void {
  const file = markPath(env, agent, nativeId, 'declared')
  if (file === null) return
  try {
    if (declared) {
      fs.mkdirSync(path.dirname(file), {mode: 0o700, recursive: true})
      fs.writeFileSync(file, '', {mode: 0o600})
    } else {
      fs.rmSync(file, {force: true})
    }
  } catch {
    // The marker only spares the agent a nudge: never fail the declaration over it.
  }
}

/** Did the hook nudge the session's current turn? */
export function wasNudged(env: Env, agent: string, nativeId: string): boolean {
  const file = markPath(env, agent, nativeId, 'nudged')
  return file !== null && fs.existsSync(file)
}

export interface PresenceNotice {
  readonly id: string
  readonly text: string
}

/** Publish a presence notice for the hooks: every session hears it once (next prompt or its start). */
export function writePresenceNotice(env: Env, notice: PresenceNotice): void {
  const home = castHome(env)
  fs.mkdirSync(home, {mode: 0o700, recursive: true})
  // JSON-escaped without the quotes: the hook pastes it into a JSON string as it is.
  const line = JSON.stringify(notice.text.replaceAll(/[\r\n]+/g, ' ')).slice(1, -1)
  const file = path.join(home, 'presence.notice')
  const tmp = `${file}.${process.pid}.tmp`
  fs.writeFileSync(tmp, `${notice.id}\n${line}\n`, {mode: 0o600})
  fs.renameSync(tmp, file)
}

export function readPresenceNotice(env: Env): PresenceNotice | null {
  try {
    const [id, line] = fs.readFileSync(path.join(castHome(env), 'presence.notice'), 'utf8').split('\n')
    if (!id) return null
    return {id, text: JSON.parse(`"${line ?? ''}"`) as string}
  } catch {
    return null
  }
}

/** The sessions (agent, native id) whose hook told them the notice with this id. */
export function toldOf(env: Env, id: string): {agent: string; nativeId: string}[] {
  const out: {agent: string; nativeId: string}[] = []
  let names: string[] = []
  try {
    names = fs.readdirSync(marksDir(env))
  } catch {
    return out
  }

  for (const name of names) {
    const m = /^([a-z0-9_]+)\.(.+)\.presence$/.exec(name)
    if (!m) continue
    try {
      if (fs.readFileSync(path.join(marksDir(env), name), 'utf8').trim() === id) out.push({agent: m[1]!, nativeId: m[2]!})
    } catch {
      /* gone */
    }
  }

  return out
}

/** Record that a session was told the notice with this id (a send did it; the hook will not repeat it). */
export function setPresenceMark(env: Env, agent: string, nativeId: string, id: string): void {
  const file = markPath(env, agent, nativeId, 'presence')
  if (file === null) return
  try {
    fs.mkdirSync(path.dirname(file), {mode: 0o700, recursive: true})
    fs.writeFileSync(file, `${id}\n`, {mode: 0o600})
  } catch {
    /* best effort */
  }
}
