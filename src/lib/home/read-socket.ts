/**
 * Reads `cast daemon` answers over the socket `cast state` declares through
 * (src/lib/state/state-socket.ts): `cast sessions` and `cast status` ask the daemon, which has the
 * store open and current, and print its bytes; this process loads neither the store nor oclif.
 * The server side is src/lib/cli/read-serve.ts.
 *
 * The socket is trusted as `cast state` trusts it: a folder and a socket this user owns, the
 * folder closed to everyone else. One request, one reply:
 *   request  {v, kind: "read", id, cmd, argv, env, me, tz, recencyMs?}: one line of JSON. `env` is
 *            this process's environment (the daemon reads the config, the clock and the terminal
 *            width from it as this process would), `me` whoAmI() here (it depends on the folder
 *            this process runs in), `tz` the time zone the answer is rendered in.
 *   reply    one line of JSON {v, id, ok: true, bytes, code} followed by exactly `bytes` bytes of
 *            stdout, or {v, ok: false}: the daemon answers nothing it cannot answer as the
 *            command would, and the caller then runs the command itself.
 * Nothing is printed until the whole reply is in, so a daemon that stops half way leaves the
 * caller free to answer itself. A read changes nothing, so answering again is always safe.
 */
import fs from 'node:fs'

import {locate, protocolVersion} from './run-socket.js'

export type ReadCommand = 'sessions' | 'status'

export interface ReadRequest {
  v: string
  kind: 'read'
  id: string
  cmd: ReadCommand
  argv: string[]
  env: Record<string, string>
  me: string
  tz: string
  /** `cast status`: inbox.recency as this process read it (null: the default). */
  recencyMs?: number | null
}

export interface ReadReplyHead {
  v: string
  id?: string
  ok: boolean
  bytes?: number
  code?: number
}

/** The largest answer read back (a listing of 100,000 sessions is about 130 MB). */
export const MAX_READ_BYTES = 1024 * 1024 * 1024
/** How long the caller waits for the whole answer: 10 s, or CAST_STATE_WAIT_MS (1 ms to 60 s). */
const READ_TIMEOUT_MS = 10_000

/**
 * The zone times are rendered in, as this process sees it: TZ and the offsets now, in January and
 * in July. Not Intl's zone name, whose first use costs about 20 ms (ICU's start) of a read that
 * takes 150.
 */
export function timeZone(): string {
  const year = new Date().getFullYear()
  const offsets = [Date.now(), Date.UTC(year, 0, 15), Date.UTC(year, 6, 15)].map((t) => new Date(t).getTimezoneOffset())
  return `${process.env.TZ ?? ''}|${offsets.join(',')}`
}

/** The environment as the request carries it (only the variables that are set). */
export function envOf(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v
  return out
}

/**
 * Ask the daemon for a read's stdout. Null (the caller answers itself) when there is no socket of
 * this user's, the connection fails, the daemon declines, or no whole answer came in time.
 */
export async function askDaemonRead(
  home: string,
  request: Omit<ReadRequest, 'id' | 'kind' | 'v'>,
): Promise<{stdout: Buffer; code: number} | null> {
  // Found and checked as `cast state` finds it: never through a link, the inode checked is the one connected to.
  const found = locate(home)
  if (found.kind !== 'socket') return null

  const ms = Number(request.env.CAST_STATE_WAIT_MS)
  const timeout = Number.isInteger(ms) && ms > 0 && ms <= 60_000 ? ms : READ_TIMEOUT_MS
  const id = `${process.pid.toString(36)}.${Date.now().toString(36)}.${Math.random().toString(36).slice(2)}`
  const line = JSON.stringify({...request, id, kind: 'read', v: protocolVersion()} satisfies ReadRequest) + '\n'
  const net = await import('node:net')
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    let head: ReadReplyHead | null = null
    let bodyAt = 0
    const done = (r: {stdout: Buffer; code: number} | null): void => {
      clearTimeout(timer)
      socket.destroy()
      found.release()
      resolve(r)
    }

    const socket = net.connect(found.at)
    const timer = setTimeout(() => done(null), timeout)
    socket.on('error', () => done(null))
    socket.on('end', () => done(null))
    socket.on('connect', () => socket.write(line))
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      size += chunk.length
      if (head === null) {
        const all = Buffer.concat(chunks)
        const nl = all.indexOf(10)
        if (nl < 0) return void (size > 64 * 1024 && done(null))
        try {
          head = JSON.parse(all.subarray(0, nl).toString('utf8')) as ReadReplyHead
        } catch {
          return done(null)
        }

        const h = head
        const understood =
          h !== null &&
          h.v === protocolVersion() &&
          h.ok === true &&
          h.id === id &&
          Number.isInteger(h.bytes) &&
          h.bytes! >= 0 &&
          h.bytes! <= MAX_READ_BYTES &&
          Number.isInteger(h.code)
        if (!understood) return done(null)
        chunks.length = 0
        chunks.push(all)
        bodyAt = nl + 1
      }

      const want = bodyAt + head.bytes!
      if (size > want) return done(null)
      if (size === want) done({code: head.code!, stdout: Buffer.concat(chunks).subarray(bodyAt)})
    })
  })
}

/** Write to a descriptor directly (process.stdout would load the stream and tty modules); one that would block goes through the stream. */
export function writeAll(fd: 1 | 2, bytes: Buffer): void {
  let done = 0
  try {
    while (done < bytes.length) done += fs.writeSync(fd, bytes, done)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // A reader that went away (cast sessions | head) is not an error, as on the command's path.
    if (code === 'EPIPE') return
    if (code !== 'EAGAIN') throw error
    ;(fd === 1 ? process.stdout : process.stderr).write(bytes.subarray(done))
  }
}
