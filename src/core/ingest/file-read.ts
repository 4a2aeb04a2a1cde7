/**
 * Reading bytes from the agents' files: opened as regular files only (never through a symlink,
 * never blocking on a FIFO), whole or as complete lines from an offset. Shared by the engine and
 * the read worker.
 */
import fs from 'node:fs'

const CHUNK = 1 << 20
/**
 * The one chunk buffer readLines reads into, reused (it never keeps a reference past a call, and
 * no line callback reads another file). A fresh 1 MB buffer per file made a cold index of
 * thousands of small files mostly garbage: the external memory forced collections, which cost
 * as much as the reading itself.
 */
let chunkBuffer: Buffer | null = null
/** A single line longer than this is skipped and counted, never buffered whole. */
const MAX_LINE = 64 * 1024 * 1024
/** Opened without following a symlink and without blocking on a FIFO or a device. */
export const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0)

/** Open a file to read: a regular file only, never through a symlink, never blocking. */
export function openRegular(file: string): {fd: number; st: fs.Stats} | null {
  let fd: number
  try {
    fd = fs.openSync(file, OPEN_FLAGS)
  } catch {
    return null
  }

  try {
    const st = fs.fstatSync(fd)
    if (st.isFile()) return {fd, st}
  } catch {
    // fall through
  }

  fs.closeSync(fd)
  return null
}

/** A whole file's text, read as a regular file only (null: not one, or gone). */
export function readRegularFile(file: string): string | null {
  const f = openRegular(file)
  if (!f) return null
  try {
    return fs.readFileSync(f.fd, 'utf8')
  } finally {
    fs.closeSync(f.fd)
  }
}

/** Up to 32 bytes just before `offset`, hex: where an incremental read resumes. */
export function tailPrint(file: string, offset: number): string {
  const n = Math.min(32, offset)
  const buf = Buffer.alloc(n)
  const fd = fs.openSync(file, OPEN_FLAGS)
  try {
    fs.readSync(fd, buf, 0, n, offset - n)
  } finally {
    fs.closeSync(fd)
  }

  return buf.toString('hex')
}

/**
 * Read complete lines from `start` to `end`. A partial last line is left for the next read: the
 * returned offset is where it starts. Lines over MAX_LINE are skipped and counted.
 */
export function readLines(
  fd: number,
  start: number,
  end: number,
  onLine: (text: string, offset: number) => void,
  maxLine = MAX_LINE,
): {offset: number; oversize: number} {
  chunkBuffer ??= Buffer.allocUnsafe(CHUNK)
  const buf = chunkBuffer
  let pos = start
  let carry: Buffer | null = null
  let carryStart = start
  // Set while skipping an oversize line: where it started.
  let skipFrom: number | null = null
  let oversize = 0
  while (pos < end) {
    const n = fs.readSync(fd, buf, 0, Math.min(CHUNK, end - pos), pos)
    if (n <= 0) break
    let chunk: Buffer = buf.subarray(0, n)
    let base = pos
    if (carry) {
      chunk = Buffer.concat([carry, chunk])
      base = carryStart
      carry = null
    }

    pos += n
    let s = 0
    for (;;) {
      const nl = chunk.indexOf(10, s)
      if (nl === -1) break
      if (skipFrom === null) {
        let e = nl
        if (e > s && chunk[e - 1] === 13) e--
        if (e > s) onLine(chunk.toString('utf8', s, e), base + s)
      } else {
        oversize++
        skipFrom = null
      }

      s = nl + 1
    }

    if (s < chunk.length && skipFrom === null) {
      if (chunk.length - s > maxLine) {
        skipFrom = base + s
      } else {
        carry = Buffer.from(chunk.subarray(s))
        carryStart = base + s
      }
    }
  }

  // A partial last line (or an unfinished oversize one) waits for its newline.
  if (skipFrom !== null) return {offset: skipFrom, oversize}
  return {offset: carry ? carryStart : pos, oversize}
}
