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
import fs from 'node:fs'
import path from 'node:path'

/** Bumped when the request or the reply changes; the package's version is compared too. */
const PROTOCOL = 1
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

export const socketDir = (home: string): string => path.join(home, 'run')
export const socketPath = (home: string): string => path.join(socketDir(home), 'state.sock')

let version: string | undefined
/** The protocol and the installed package's version: a daemon of another build declines (or is declined). */
export function protocolVersion(): string {
  if (version === undefined) {
    let pkg = '?'
    try {
      pkg = (JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {version?: string}).version ?? '?'
    } catch {
      // A build without its package.json: the protocol number alone.
    }

    version = `${PROTOCOL}/${pkg}`
  }

  return version
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

/** Is `p` (lstat) owned by this user, and, for the folder, closed to everyone else? */
export function ownedPrivate(st: fs.Stats, folder: boolean): boolean {
  const uid = process.getuid?.()
  if (uid === undefined || st.uid !== uid) return false
  return folder ? st.isDirectory() && (st.mode & 0o077) === 0 : st.isSocket()
}

export type Asked = {answered: true; reply: StateReply} | {answered: false; sent: boolean; refused?: string}

/** Linux's O_PATH (fs.constants lacks it): a descriptor that names the file without opening it, so a FIFO never blocks. */
const O_PATH = 0o10000000

/** What lstat-like stats show, for the one line that says why a path was not connected to. */
function what(st: fs.Stats, folder: boolean): string {
  if (st.isSymbolicLink()) return 'a symbolic link'
  if (st.uid !== process.getuid?.()) return `another user's ${st.isSocket() ? 'socket' : st.isDirectory() ? 'folder' : 'file'}`
  if (folder) return st.isDirectory() ? `reachable by other users (mode ${(st.mode & 0o777).toString(8)})` : 'not a folder'
  return st.isFIFO() ? 'a FIFO' : st.isFile() ? 'a regular file' : st.isDirectory() ? 'a folder' : 'not a socket'
}

/** Control, bidi and zero-width characters of a path shown in a line, as `?`. */
const shown = (p: string): string => [...p].map((c) => (/[\p{Cc}\p{Cf}\u2028\u2029]/u.test(c) ? '?' : c)).join('')

type Located = {kind: 'none'} | {kind: 'refused'; why: string} | {kind: 'socket'; at: string; release: () => void}

/**
 * The daemon's socket, checked and connected to without following a link. On Linux the folder and
 * then the socket are opened O_PATH|O_NOFOLLOW (the socket through the folder's descriptor), their
 * stats read from those descriptors, and the connection made through /proc/self/fd/N: the very
 * inode that was checked, whatever is renamed into the path meanwhile. Elsewhere lstat and the path.
 */
function locate(home: string): Located {
  const dir = socketDir(home)
  const file = socketPath(home)
  const refuse = (p: string, st: fs.Stats, folder: boolean): Located => ({kind: 'refused', why: `${shown(p)} is ${what(st, folder)}`})
  if (process.platform !== 'linux') {
    try {
      const d = fs.lstatSync(dir, {throwIfNoEntry: false})
      if (d === undefined) return {kind: 'none'}
      if (!ownedPrivate(d, true)) return refuse(dir, d, true)
      const f = fs.lstatSync(file, {throwIfNoEntry: false})
      if (f === undefined) return {kind: 'none'}
      return ownedPrivate(f, false) ? {at: file, kind: 'socket', release: () => {}} : refuse(file, f, false)
    } catch {
      return {kind: 'none'}
    }
  }

  const fds: number[] = []
  const release = (): void => {
    for (const fd of fds.splice(0)) fs.closeSync(fd)
  }

  try {
    fds.push(fs.openSync(dir, O_PATH | fs.constants.O_NOFOLLOW))
    const d = fs.fstatSync(fds[0]!)
    if (!ownedPrivate(d, true)) {
      release()
      return refuse(dir, d, true)
    }

    fds.push(fs.openSync(`/proc/self/fd/${fds[0]}/${path.basename(file)}`, O_PATH | fs.constants.O_NOFOLLOW))
    const f = fs.fstatSync(fds[1]!)
    if (!ownedPrivate(f, false)) {
      release()
      return refuse(file, f, false)
    }

    return {at: `/proc/self/fd/${fds[1]}`, kind: 'socket', release}
  } catch {
    release()
    return {kind: 'none'}
  }
}

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
