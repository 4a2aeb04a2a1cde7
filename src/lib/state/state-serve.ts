/**
 * `cast daemon`'s side of `cast state`'s socket (src/lib/state/state-socket.ts describes it): the
 * daemon has the store open and the lease, so it declares for the caller as the caller's own
 * process would (src/lib/state/state-declare.ts), and replies with the bytes and the exit code.
 *
 * It trusts the caller no further than the local path does. The arguments go through the same
 * parser (state-args.ts). The process tree and the ancestry walk start at the caller's parent,
 * read from /proc, and the caller's pid is proved, not taken: the process must be this user's,
 * and its descriptor the request names must be the socket at the other end of this very
 * connection (the kernel's pairing of the two ends, as `ss -x` reads it from sock_diag). A pid
 * that fails any of it is declined, and the caller (a real one) answers itself. Whatever is not
 * understood is one line in the daemon's log and a closed connection, never a crash.
 */
import {execFile} from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'

import {SESSION_VARIABLES} from '../../adapters/session-variables.js'
import {parentPid} from '../../core/ingest/process-table.js'
import {isProcessLive} from '../../core/model/work-state.js'
import type {Store} from '../../core/store/store.js'
import {sweepSnoozes} from '../../core/store/triage.js'
import type {ReadReplyHead, ReadRequest} from '../home/read-socket.js'
import {INGESTER_LEASE, leaseIsLive} from '../ingest/lease.js'
import {parseStateArgs} from './state-args.js'
import {CALLER_VARIABLES, declare, declaredText, findOwn} from './state-declare.js'
import {
  MAX_REQUEST_BYTES,
  ownedPrivate,
  protocolVersion,
  socketDir,
  socketPath,
  type StateReply,
  type StateRequest,
} from './state-socket.js'

/** How long a connection may take to send its whole request. */
const REQUEST_TIMEOUT_MS = 2000
/** Connections open at once; more are closed as they come (their callers answer themselves). */
export const MAX_CONNECTIONS = 32
/** Proofs of a caller's pid (each runs `ss`) at once, and waiting; a request past them is declined. */
const PROOFS_AT_ONCE = 1
const PROOFS_WAITING = 8
/** Lines the socket writes to the daemon's log per minute; the rest are counted in one line. */
const LOG_LINES_PER_MINUTE = 10

type Log = (m: string) => void

/**
 * At most `perMinute` lines a minute; the ones past that are counted and said in one line when the
 * minute ends. A flood of bad connections costs the log a dozen lines a minute, not one each.
 */
function throttled(log: Log, perMinute: number): {log: Log; stop: () => void} {
  let used = 0
  let dropped = 0
  const timer = setInterval(() => {
    if (dropped > 0) log(`cast state's socket: ${dropped} more lines like the above in the last minute, not logged`)
    used = 0
    dropped = 0
  }, 60_000)
  timer.unref()
  return {
    log: (m) => {
      if (used++ < perMinute) log(m)
      else dropped++
    },
    stop: () => clearInterval(timer),
  }
}

/** A counting gate: run `task` when fewer than `atOnce` run, else wait among at most `waiting`; null when full. */
function gate(atOnce: number, waiting: number): <T>(task: () => Promise<T>) => Promise<T> | null {
  let running = 0
  const queue: (() => void)[] = []
  return <T>(task: () => Promise<T>): Promise<T> | null => {
    if (running >= atOnce && queue.length >= waiting) return null
    const start = (): Promise<T> => {
      running++
      return task().finally(() => {
        running--
        queue.shift()?.()
      })
    }

    return running < atOnce ? start() : new Promise<T>((resolve, reject) => queue.push(() => void start().then(resolve, reject)))
  }
}

export interface StateSocket {
  readonly path: string
  close(): Promise<void>
}

/**
 * Listen on CAST_HOME/run/state.sock (the folder made 0700 and this user's, the socket 0600).
 * Null, with one line in the log, when the folder is not this user's alone or the path is taken by
 * something that is not a socket: callers then declare themselves, as without a daemon.
 */
export interface ServeOptions {
  log: (m: string) => void
  onChange: () => void
  me: string
  /** The reads the socket also answers (src/lib/cli/read-serve.ts); without it every read is declined. */
  read?: {accepts(r: unknown): r is ReadRequest; answer(r: ReadRequest): Promise<{code: number; stdout: string} | null>}
}

export async function serveState(store: Store, home: string, o: ServeOptions): Promise<StateSocket | null> {
  const dir = socketDir(home)
  const file = socketPath(home)
  try {
    fs.mkdirSync(dir, {mode: 0o700, recursive: true})
    const st = fs.lstatSync(dir)
    if (st.isDirectory() && st.uid === process.getuid?.()) fs.chmodSync(dir, 0o700)
    if (!ownedPrivate(fs.lstatSync(dir), true)) throw new Error(`${dir} is not a folder of this user's alone`)
    const old = fs.lstatSync(file, {throwIfNoEntry: false})
    // The lease makes this daemon the only one for this home: a socket left here is a stopped one's.
    // Anything else (a symbolic link, a FIFO, a file) is left as it is: never opened, never followed.
    if (old?.isSocket() && old.uid === process.getuid?.()) fs.rmSync(file)
    else if (old) throw new Error(`${file} is ${kindOf(old)}, not a socket; left as it is`)
  } catch (error) {
    o.log(`cast state's socket not started: ${(error as Error).message}`)
    return null
  }

  const logs = throttled(o.log, LOG_LINES_PER_MINUTE)
  const prove = gate(PROOFS_AT_ONCE, PROOFS_WAITING)
  // Bound under a name of this process's, then renamed into place: libuv unlinks the path a pipe
  // server listened on when it closes (uv__pipe_close), by name, whatever is there by then; the
  // name it unlinks is this one, never state.sock. `ss -x` names the socket by it too.
  const bound = `${file}.${process.pid}`
  const ctx: Context = {...o, bound, log: logs.log, prove}
  const server = net.createServer((socket) => connection(socket, store, ctx))
  server.maxConnections = MAX_CONNECTIONS
  server.on('drop', () => logs.log(`cast state's socket: a connection over the limit of ${MAX_CONNECTIONS} open at once; closed`))
  let made: fs.Stats
  // Made 0600 as it is made (a chmod by path afterwards would follow a link put there meanwhile).
  const umask = process.umask(0o177)
  try {
    if (fs.lstatSync(bound, {throwIfNoEntry: false})?.isSocket()) fs.rmSync(bound)
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(bound, () => resolve())
    })
    made = fs.lstatSync(bound)
    if (!made.isSocket()) throw new Error(`${bound} is ${kindOf(made)} right after listening`)
    fs.renameSync(bound, file)
  } catch (error) {
    o.log(`cast state's socket not started: ${(error as Error).message}`)
    logs.stop()
    server.close()
    return null
  } finally {
    process.umask(umask)
  }

  server.on('error', (error) => logs.log(`cast state's socket: ${error.message}`))
  return {
    path: file,
    close: () =>
      new Promise<void>((resolve) => {
        logs.stop()
        server.close(() => resolve())
        // Only this daemon's own socket: whatever was put at the path stays (a link made after the
        // socket was removed may be given its inode number, so the kind and birth are compared too).
        const st = fs.lstatSync(file, {throwIfNoEntry: false})
        if (st?.isSocket() && st.ino === made.ino && st.dev === made.dev && st.birthtimeMs === made.birthtimeMs)
          fs.rmSync(file, {force: true})
      }),
  }
}

/** What a path is, in words, for a line saying why it was not used. */
function kindOf(st: fs.Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link'
  if (st.isFIFO()) return 'a FIFO'
  if (st.isSocket()) return "another user's socket"
  if (st.isDirectory()) return 'a folder'
  return st.isFile() ? 'a regular file' : 'a device'
}

interface Context extends ServeOptions {
  /** The name the socket was bound under (what `ss -x` shows for it). */
  bound: string
  log: Log
  prove: ReturnType<typeof gate>
}

function connection(socket: net.Socket, store: Store, o: Context): void {
  const chunks: Buffer[] = []
  let size = 0
  let handled = false
  const close = (why: string | null): void => {
    if (why !== null) o.log(`cast state's socket: ${why}; connection closed`)
    handled = true
    clearTimeout(timer)
    socket.destroy()
  }

  const timer = setTimeout(() => close(`no whole request within ${REQUEST_TIMEOUT_MS / 1000} s (${size} bytes)`), REQUEST_TIMEOUT_MS)
  socket.on('error', () => close(null))
  socket.on('end', () => {
    if (!handled) close(`a request ended before its newline (${size} bytes)`)
  })
  socket.on('data', (chunk: Buffer) => {
    if (handled) return
    const nl = chunk.indexOf(10)
    size += nl < 0 ? chunk.length : nl
    if (size > MAX_REQUEST_BYTES) return close(`a request over ${MAX_REQUEST_BYTES / 1024} KB`)
    if (nl < 0) return void chunks.push(chunk)
    chunks.push(chunk.subarray(0, nl))
    handled = true
    clearTimeout(timer)
    let request: StateRequest
    try {
      const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown
      if ((parsed as {kind?: unknown} | null)?.kind === 'read') return void read(socket, parsed, o)
      request = parsed as StateRequest
      if (!wellFormed(request)) throw new Error('fields missing or of the wrong type')
    } catch (error) {
      reply(socket, {ok: false, v: protocolVersion()})
      return o.log(`cast state's socket: a request not understood (${(error as Error).message.slice(0, 200)}); declined`)
    }

    void answer(socket, request, store, o)
      .catch((error: Error) => {
        o.log(`cast state's socket: ${error.message}; declined`)
        return {ok: false, v: protocolVersion()} satisfies StateReply
      })
      .then((r) => reply(socket, r))
  })
}

/** A read (src/lib/home/read-socket.ts): its head line and stdout, or declined. */
function read(socket: net.Socket, parsed: unknown, o: Context): void {
  const declined = (): void => reply(socket, {ok: false, v: protocolVersion()})
  if (!o.read?.accepts(parsed)) return declined()
  const r = parsed
  o.read
    .answer(r)
    .then((a) => {
      if (a === null) return declined()
      if (socket.destroyed) return
      const body = Buffer.from(a.stdout, 'utf8')
      socket.write(
        JSON.stringify({bytes: body.length, code: a.code, id: r.id, ok: true, v: protocolVersion()} satisfies ReadReplyHead) + '\n',
      )
      socket.end(body)
    })
    .catch((error: Error) => {
      o.log(`cast ${r.cmd} over the socket: ${error.message.slice(0, 200)}; declined`)
      declined()
    })
}

/** Found through an agent's own variable: the ancestry may prove that agent alive (ancestry.ts). */
const ancestryNamed = (via: string): boolean => SESSION_VARIABLES.some((v) => v.name === via)

/**
 * The reply, then the connection closed from this end: once the reply is in the caller's buffer,
 * or after REQUEST_TIMEOUT_MS if it never gets there. A caller that never reads nor closes (its
 * end of the connection then never sees the end) holds no connection slot past that.
 */
function reply(socket: net.Socket, r: StateReply): void {
  if (socket.destroyed) return
  const timer = setTimeout(() => socket.destroy(), REQUEST_TIMEOUT_MS)
  timer.unref()
  socket.once('close', () => clearTimeout(timer))
  socket.end(JSON.stringify(r) + '\n', () => socket.destroy())
}

function wellFormed(r: StateRequest): boolean {
  const str = (v: unknown, max: number): boolean => typeof v === 'string' && v.length <= max
  return (
    typeof r === 'object' &&
    r !== null &&
    str(r.v, 100) &&
    str(r.id, 100) &&
    /^[\w.-]{8,}$/.test(r.id) &&
    Number.isInteger(r.pid) &&
    Number.isInteger(r.fd) &&
    Array.isArray(r.argv) &&
    r.argv.every((a) => typeof a === 'string') &&
    typeof r.vars === 'object' &&
    r.vars !== null &&
    Object.values(r.vars).every((v) => typeof v === 'string') &&
    str(r.device, 300) &&
    (r.me === undefined || str(r.me, 300))
  )
}

async function answer(socket: net.Socket, r: StateRequest, store: Store, o: Context): Promise<StateReply> {
  const declined: StateReply = {ok: false, v: protocolVersion()}
  // Another build's client: it answers itself (its code and this daemon's may differ).
  if (r.v !== protocolVersion()) return declined
  const args = parseStateArgs(r.argv)
  if (args === null || (args.json && r.me === undefined)) return declined
  const vars = Object.fromEntries(CALLER_VARIABLES.filter((k) => r.vars[k] !== undefined).map((k) => [k, r.vars[k]]))
  const live = leaseIsLive(store.getLease(INGESTER_LEASE))
  if (!live) return declined
  // The caller's pid is read, and so proved, only where the local path reads its ancestry: the
  // process tree, and a session its agent's variable named whose process the store does not hold
  // live (state-declare.ts, ancestry.ts ancestryProcess). Elsewhere pid 0 starts no walk.
  const unproved = findOwn(store, args.session, {device: r.device, ppid: 0, vars}, live)
  const walks =
    unproved === null ||
    (ancestryNamed(unproved.via) && !isProcessLive(store.loadFactsByNative(unproved.agent, unproved.nativeId)?.process ?? null))
  let ppid: number | null = 0
  if (walks) {
    const proof = o.prove(() => provenPeer(socket, r.pid, r.fd, o.bound))
    if (proof === null) {
      o.log(`cast state's socket: declined a request naming pid ${r.pid}: ${PROOFS_AT_ONCE + PROOFS_WAITING} others are being proved`)
      return declined
    }

    const refused = await proof
    if (refused !== null) {
      o.log(`cast state's socket: declined a request naming pid ${r.pid}: ${refused}`)
      return declined
    }

    ppid = parentPid(r.pid)
  }

  if (ppid === null) return declined
  const caller = {device: r.device, ppid, requestId: r.id, vars}
  const found = walks ? findOwn(store, args.session, caller, live) : unproved
  if (found === null) return declined
  // As a synced store does (src/lib/ingest/ingest.ts syncBeforeRead): snoozes that came due wake first.
  sweepSnoozes(store, Date.now())
  const now = Date.now()
  declare(store, found, args, caller, now)
  o.onChange()
  const mark = {agent: found.agent, declared: args.status !== 'working', nativeId: found.nativeId}
  try {
    const stdout = await declaredText(store, found, args, now, () => r.me ?? o.me)
    return {code: 0, id: r.id, mark, ok: true, stderr: '', stdout, v: protocolVersion()}
  } catch (error) {
    const stderr = `cast: the state was declared, but printing it failed: ${(error as Error).message}\n`
    return {code: 1, id: r.id, mark, ok: true, stderr, stdout: '', v: protocolVersion()}
  }
}

/**
 * Is `pid` the process at the other end of this connection? It must be this user's, and its
 * descriptor `fd` the socket the kernel pairs with this end. Null when proved, else why not.
 */
async function provenPeer(socket: net.Socket, pid: number, fd: number, file: string): Promise<string | null> {
  if (pid <= 1 || fd < 0) return 'no pid and descriptor'
  let status: string
  let theirs: string
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
    theirs = fs.readlinkSync(`/proc/${pid}/fd/${fd}`)
  } catch {
    return `no process ${pid} of this user's holds descriptor ${fd}`
  }

  const uid = /^Uid:\s+(\d+)\s+(\d+)/m.exec(status)
  if (uid === null || Number(uid[1]) !== process.getuid?.() || Number(uid[2]) !== process.getuid?.()) return "not this user's process"
  const ownFd = (socket as unknown as {_handle?: {fd?: number}})._handle?.fd
  const mine = /^socket:\[(\d+)\]$/.exec(typeof ownFd === 'number' ? fs.readlinkSync(`/proc/self/fd/${ownFd}`) : '')?.[1]
  const other = /^socket:\[(\d+)\]$/.exec(theirs)?.[1]
  if (mine === undefined) return 'this end of the connection has no socket inode'
  if (other === undefined) return `its descriptor ${fd} is not a socket`
  const peer = await peerInode(mine, file)
  if (peer === null) return 'the other end of the connection could not be read (ss -x)'
  return peer === other ? null : `its descriptor ${fd} is not the other end of this connection`
}

/** The inode of the socket paired with ours (`inode` on `file`), from `ss -xnH`; null when not exactly one line says. */
function peerInode(inode: string, file: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile('ss', ['-xnH'], {encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: REQUEST_TIMEOUT_MS}, (error, out) => {
      if (error) return resolve(null)
      const peers = new Set<string>()
      for (const line of out.split('\n')) {
        const m = /^u_str\s+\S+\s+\d+\s+\d+\s+(.*?)\s+(\d+)\s+\*\s+(\d+)\s*$/.exec(line)
        if (m?.[2] === inode) peers.add(m[1] === file ? m[3]! : 'elsewhere')
      }

      resolve(peers.size === 1 && !peers.has('elsewhere') ? [...peers][0]! : null)
    })
  })
}
