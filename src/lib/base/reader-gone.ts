/**
 * `cast sessions -w | head -n 1`: once head has its line and exits, a watcher that has nothing
 * to write would never learn it (EPIPE comes only with a write, and a zero-byte write to a pipe
 * succeeds without readers). On Linux the pipe's readers are visible in /proc: find the
 * processes holding the read end of our stdout once, check those few every interval, and call
 * onGone when none holds it any more (after one full re-scan, for a reader that handed the pipe
 * to a child). When no reader can be seen (not a pipe, not Linux, another user's reader) this
 * does nothing and the watcher falls back to EPIPE on its next write.
 *
 * Node's own child_process pipes are socketpairs, not pipes: there stdout's handle can read,
 * and the peer closing its end is an end-of-file on it.
 */
import fs from 'node:fs'

interface Holder {
  readonly pid: string
  readonly fd: string
}

function holders(link: string, self: string): Holder[] {
  const found: Holder[] = []
  let pids: string[]
  try {
    pids = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p) && p !== self)
  } catch {
    return found
  }

  for (const pid of pids) {
    let fds: string[]
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`)
    } catch {
      continue
    }

    for (const fd of fds) if (holdsRead(pid, fd, link)) found.push({fd, pid})
  }

  return found
}

function holdsRead(pid: string, fd: string, link: string): boolean {
  try {
    if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`) !== link) return false
    const flags = /^flags:\s*([0-7]+)/m.exec(fs.readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'))?.[1]
    // O_ACCMODE: 0 read-only, 2 read-write.
    return flags !== undefined && (Number.parseInt(flags, 8) & 3) !== 1
  } catch {
    return false
  }
}

export function onReaderGone(fd: number, onGone: () => void, intervalMs = 400): () => void {
  let link: string
  try {
    link = fs.readlinkSync(`/proc/self/fd/${fd}`)
  } catch {
    return () => {}
  }

  if (/^socket:/.test(link)) return onPeerClosed(onGone)
  if (!/^pipe:\[\d+\]$/.test(link)) return () => {}
  const self = String(process.pid)
  let known = holders(link, self)
  if (known.length === 0) return () => {}
  const timer = setInterval(() => {
    known = known.filter((h) => holdsRead(h.pid, h.fd, link))
    if (known.length > 0) return
    known = holders(link, self)
    if (known.length > 0) return
    clearInterval(timer)
    onGone()
  }, intervalMs)
  timer.unref()
  return () => clearInterval(timer)
}

/** stdout is a socket (a Node parent's 'pipe'): read it; EOF means the reader closed its end. */
function onPeerClosed(onGone: () => void): () => void {
  const handle = (
    process.stdout as unknown as {_handle?: {onread?: (buf?: ArrayBuffer) => void; readStart?: () => number; readStop?: () => number}}
  )._handle
  if (!handle?.readStart) return () => {}
  handle.onread = (buf?: ArrayBuffer) => {
    // Data a reader sent back is ignored; end-of-file or an error is the reader gone.
    if (buf === undefined) {
      handle.readStop?.()
      onGone()
    }
  }

  if (handle.readStart() !== 0) return () => {}
  return () => handle.readStop?.()
}
