/**
 * The socket `cast daemon` answers `cast state` on (src/lib/state/state-serve.ts), and the client
 * side src/lib/state/state-fast.ts uses: with a daemon running, the declaration is made in the
 * daemon, which has the store open, and the caller loads neither better-sqlite3 nor the store.
 *
 * Where: CAST_HOME/run/state.sock, in a folder only the user reaches (0700), the socket 0600. The
 * client connects only to a socket and folder the current user owns, the folder reachable by no
 * one else. One request, one reply, each one line of JSON:
 *   request  {v, id, pid, fd, argv, vars, device, me?}: the caller's pid and the descriptor number
 *            of its end of this connection (the daemon checks them, see state-serve.ts), the
 *            arguments as typed, CAST_SESSION and the agents' variables, deviceName(), and with
 *            --json the reader (whoAmI).
 *   reply    {v, id, ok: true, stdout, stderr, code, mark} once declared, or {v, ok: false} when
 *            the daemon declared nothing (the caller then answers itself, as without a daemon).
 * A request that may have reached the daemon is answered locally under the same id when no reply
 * came: a declaration is made once per id (state-declare.ts), so a daemon that stopped after
 * writing but before replying never makes it twice.
 */

import {locate, protocolVersion} from '../home/run-socket.js'

export {ownedPrivate, protocolVersion, socketDir, socketPath} from '../home/run-socket.js'

/** The longest request line the daemon reads (the arguments are at most a few MAX_TEXT_ARG). */
export const MAX_REQUEST_BYTES = 512 * 1024
/**
 * How long the caller waits for the daemon's reply before answering itself: 3 s, or
 * CAST_STATE_WAIT_MS (1 ms to 60 s) for a machine where a daemon's pass can take longer.
 */
const REPLY_TIMEOUT_MS = 3000
function replyTimeout(): number {
  const ms = Number(process.env.CAST_STATE_WAIT_MS)
  return Number.isInteger(ms) && ms > 0 && ms <= 60_000 ? ms : REPLY_TIMEOUT_MS
}

export interface StateRequest {
  v: string
  id: string
  pid: number
  fd: number
  argv: string[]
  vars: Record<string, string>
  device: string
  me?: string
}

export interface StateReply {
  v: string
  id?: string
  ok: boolean
  stdout?: string
  stderr?: string
  code?: number
  mark?: {agent: string; nativeId: string; declared: boolean}
}

export type Asked = {answered: true; reply: StateReply} | {answered: false; sent: boolean; refused?: string}

/**
 * Ask the daemon to declare. Not answered (sent false: nothing reached it) when there is no socket,
 * it is not this user's, the connection is refused, or anything goes wrong before the request is
 * written; not answered (sent true) when no reply that this request understands came in time.
 * `refused` says, in one line, why a path that is there was not connected to (a symbolic link, a
 * FIFO, another user's, a folder others reach).
 */
export async function askDaemon(home: string, request: Omit<StateRequest, 'fd' | 'pid' | 'v'>): Promise<Asked> {
  const found = locate(home)
  if (found.kind === 'none') return {answered: false, sent: false}
  if (found.kind === 'refused') return {answered: false, refused: `${found.why}, not cast daemon's socket: not connected to`, sent: false}
  const net = await import('node:net')
  return new Promise<Asked>((resolve) => {
    let sent = false
    let data = ''
    const done = (a: Asked): void => {
      clearTimeout(timer)
      socket.destroy()
      found.release()
      resolve(a)
    }

    const socket = net.connect(found.at)
    const timer = setTimeout(() => done({answered: false, sent}), replyTimeout())
    socket.setEncoding('utf8')
    socket.on('error', () => done({answered: false, sent}))
    socket.on('connect', () => {
      const fd = (socket as unknown as {_handle?: {fd?: number}})._handle?.fd
      if (typeof fd !== 'number' || fd < 0) return done({answered: false, sent: false})
      const line = JSON.stringify({...request, fd, pid: process.pid, v: protocolVersion()} satisfies StateRequest) + '\n'
      sent = true
      socket.write(line)
    })
    socket.on('data', (chunk: string) => {
      data += chunk
      const nl = data.indexOf('\n')
      if (nl < 0) {
        if (data.length > MAX_REQUEST_BYTES) done({answered: false, sent})
        return
      }

      let reply: StateReply | null = null
      try {
        reply = JSON.parse(data.slice(0, nl)) as StateReply
      } catch {
        // Not understood: answered locally.
      }

      const understood =
        reply !== null &&
        reply.v === protocolVersion() &&
        reply.ok === true &&
        reply.id === request.id &&
        typeof reply.stdout === 'string' &&
        typeof reply.stderr === 'string' &&
        Number.isInteger(reply.code)
      done(understood ? {answered: true, reply: reply!} : {answered: false, sent})
    })
    socket.on('end', () => done({answered: false, sent}))
  })
}
