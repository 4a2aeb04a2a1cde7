/**
 * `cast state TEXT [--status S] [--session ID] [--json]` without oclif, for bin/run.js: agents run
 * it every turn. It answers with the same bytes and exit codes as the command
 * (src/commands/state/index.ts) whenever the session is found as the command finds it
 * (src/lib/agents/self-session.ts): --session, CAST_SESSION, the agent's own variable (a keyed
 * lookup on the UNIQUE (agent, native_id) index; a session whose process the store does not hold
 * live is proved live by the caller's ancestry, src/lib/agents/ancestry.ts), else, while a live
 * ingester keeps the claims current, the process tree (the claims on the caller's ancestors only).
 *
 * With `cast daemon` running, the daemon declares (src/lib/state/state-socket.ts,
 * src/lib/state/state-serve.ts): this process loads neither better-sqlite3 nor the store. Without
 * one, or when it declines or does not answer, src/lib/state/state-local.ts declares here. Anything
 * else (a session not found, ambiguous, stdin, a bad flag, help, an error to report) returns
 * false and oclif runs the command.
 *
 * bin/run.js loads the one-file build of this module (dist/lib/state/state-fast.bundle.js, made by
 * scripts/bundle-fast.mjs); state-local loads from its own bundle only when needed.
 */
import fs from 'node:fs'
import path from 'node:path'

import {setDeclaredMark} from '../ingest/turn-marks.js'
import {castHome, deviceName, whoAmI} from '../home/env.js'
import {parseStateArgs} from './state-args.js'
import {askDaemon} from './state-socket.js'
import {CALLER_VARIABLES} from './state-declare.js'

export {MAX_STATE_TEXT} from './state-args.js'

/** The local path's bundle, else its module (a specifier esbuild leaves as it is: bundled apart). */
const LOCAL_BUNDLE = './state-local.bundle.js'

export async function fastState(argv: readonly string[]): Promise<boolean> {
  const env = process.env
  const args = parseStateArgs(argv)
  // A test clock is refused by the command while a live ingester runs: leave that to it.
  if (args === null || env.CAST_NOW?.trim()) return false
  const home = castHome(env)
  if (!fs.existsSync(path.join(home, 'cast.db'))) return false

  const vars: Record<string, string> = {}
  for (const k of CALLER_VARIABLES) if (env[k] !== undefined) vars[k] = env[k]
  // Unique per call (node:crypto costs a module load): the pid, the time and a random part.
  const id = `${process.pid.toString(36)}.${Date.now().toString(36)}.${Math.random().toString(36).slice(2)}`
  const asked = await askDaemon(home, {
    argv: [...argv],
    device: deviceName(),
    id,
    ...(args.json ? {me: whoAmI(env)} : {}),
    vars,
  })
  if (asked.answered) {
    const r = asked.reply
    if (r.mark) setDeclaredMark(env, r.mark.agent, r.mark.nativeId, r.mark.declared)
    if (r.stdout) write(1, r.stdout)
    if (r.stderr) write(2, r.stderr)
    process.exitCode = r.code!
    return true
  }

  // Something other than the daemon's socket in its place: one line, then the answer without it.
  if (asked.refused) write(2, `cast: ${asked.refused}\n`)

  const {localState} = (await import(LOCAL_BUNDLE).catch(() => import('./state-local.js'))) as typeof import('./state-local.js')
  return localState(args, env, asked.sent ? id : undefined)
}

/** Write to a descriptor directly (process.stdout would load the stream and tty modules); one that would block goes through the stream. */
function write(fd: 1 | 2, text: string): void {
  const bytes = Buffer.from(text, 'utf8')
  let done = 0
  try {
    while (done < bytes.length) done += fs.writeSync(fd, bytes, done)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error
    ;(fd === 1 ? process.stdout : process.stderr).write(bytes.subarray(done))
  }
}
