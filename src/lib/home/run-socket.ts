/**
 * Where `cast daemon`'s socket is and whether to trust it, for its clients and its server
 * (src/lib/state/state-socket.ts, src/lib/home/read-socket.ts, src/lib/state/state-serve.ts):
 * CAST_HOME/run/state.sock, in a folder only the user reaches (0700), the socket 0600; and the
 * protocol's version, which both ends compare; and locate(), how a client finds and checks it. Only
 * node:fs and node:path: the fast paths load it.
 */
import fs from 'node:fs'
import path from 'node:path'

/** Bumped when the request or the reply changes; the package's version is compared too. */
const PROTOCOL = 1
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

/** Is `p` (lstat) owned by this user, and, for the folder, closed to everyone else? */
export function ownedPrivate(st: fs.Stats, folder: boolean): boolean {
  const uid = process.getuid?.()
  if (uid === undefined || st.uid !== uid) return false
  return folder ? st.isDirectory() && (st.mode & 0o077) === 0 : st.isSocket()
}

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

export type Located = {kind: 'none'} | {kind: 'refused'; why: string} | {kind: 'socket'; at: string; release: () => void}

/**
 * The daemon's socket, checked and connected to without following a link. On Linux the folder and
 * then the socket are opened O_PATH|O_NOFOLLOW (the socket through the folder's descriptor), their
 * stats read from those descriptors, and the connection made through /proc/self/fd/N: the very
 * inode that was checked, whatever is renamed into the path meanwhile. Elsewhere lstat and the path.
 */
export function locate(home: string): Located {
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
