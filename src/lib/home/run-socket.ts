/**
 * Where `cast daemon`'s socket is and whether to trust it, for its clients and its server
 * (src/lib/state/state-socket.ts, src/lib/home/read-socket.ts, src/lib/state/state-serve.ts):
 * CAST_HOME/run/state.sock, in a folder only the user reaches (0700), the socket 0600; and the
 * protocol's version, which both ends compare. Only node:fs and node:path: the fast paths load it.
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
