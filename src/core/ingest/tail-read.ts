/**
 * Reading a JSONL file from its end for an open ask (tail-ask.ts): one read of its last bytes into
 * a buffer reused from file to file, the adapter's byte test on them before any text is made, and
 * the adapter's own parser over the lines from the first that may hold the ask. Shared by the
 * engine and the read worker (read-worker.ts), which reads the tails while the engine parses the
 * recent files.
 */
import fs from 'node:fs'

import type {Adapter, Contribution, FileMatch} from './adapter.js'
import {openRegular} from './file-read.js'
import {feedLine} from './jsonl-line.js'

/**
 * The first look at a file's end; grown eightfold while the line that may hold the ask starts
 * before it. An agent writes bookkeeping lines after its ask: about 1 KB after a 1.5 KB question
 * line in a real transcript of the pinned version (the question-full.jsonl fixture, lines 20 to 23
 * and 33).
 */
export const FIRST_TAIL = 16 * 1024
/** A line longer than this is not looked at from the end (the full pass reads it). */
export const MAX_TAIL = 1 << 20

/** One file whose tail to read, as plain data (it goes to the read worker as it is). */
export interface TailJob {
  readonly agent: string
  readonly path: string
  readonly match: FileMatch & {kind: 'jsonl'}
  readonly size: number
}

/**
 * The buffer every tail is read into (no reference to it outlives a call): a fresh one per file
 * made the tails of thousands of files mostly garbage.
 */
let tailBuffer: Buffer | null = null

/** Does this contribution hold an open question or permission prompt? */
export const asks = (c: Contribution): boolean =>
  (c.facts.question !== null && c.facts.question !== undefined) || (c.facts.approval !== null && c.facts.approval !== undefined)

/** Does this adapter's file ever end on an ask its tail shows (Adapter.tailAskAt)? */
export const readsTails = (adapter: Adapter): boolean => adapter.jsonl !== undefined && adapter.tailAskAt !== false

/**
 * The contributions the complete lines at the end of a JSONL file give, read with the adapter's
 * own parser from a fresh state: the lines from the first one the adapter's byte test points at
 * (Adapter.tailAskAt; without one, every complete line of the first look). Null: no parser, not
 * readable, nothing that may ask, or that line does not start within MAX_TAIL of the end.
 */
export function tailContributions(adapter: Adapter, match: FileMatch & {kind: 'jsonl'}, file: string, size: number): Contribution[] | null {
  const parser = adapter.jsonl
  const askAt = adapter.tailAskAt
  if (!parser || askAt === false || size <= 0) return null
  // A regular file only, as every read of the engine (file-read.ts): not a FIFO or a link put in its place.
  const opened = openRegular(file)
  if (opened === null) return null
  const {fd} = opened
  try {
    for (let len = Math.min(FIRST_TAIL, size, MAX_TAIL); ; len = Math.min(len * 8, size, MAX_TAIL)) {
      const start = size - len
      if (tailBuffer === null || tailBuffer.length < len) tailBuffer = Buffer.allocUnsafe(Math.max(len, FIRST_TAIL))
      const n = fs.readSync(fd, tailBuffer, 0, len, start)
      const tail = tailBuffer.subarray(0, n)
      // The first line is cut unless the tail is the whole file: lines start after its newline.
      const first = start === 0 ? 0 : tail.indexOf(10) + 1
      let from = first
      if (askAt !== undefined) {
        const at = askAt(tail)
        if (at < 0) return null
        // The line holding the first mark: read whole only when it starts in the tail (else the look grows).
        from = tail.lastIndexOf(10, at) + 1
      }

      if (start > 0 && (from === 0 || from >= n)) {
        if (len === MAX_TAIL || len === size) return null
        continue
      }

      const state = parser.init(file, match)
      for (let s = from; s < n;) {
        const nl = tail.indexOf(10, s)
        const end = nl === -1 ? n : nl
        // A last line without its newline is fed too: a malformed one is skipped (the parser refuses it).
        if (end > s) feedLine(parser, state, tail.toString('utf8', s, end), start + s)
        s = end + 1
      }

      return parser.contributions(state, file, match)
    }
  } catch {
    return null
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Read the tails of `jobs` in order while `go()` says so; `found` gets each file whose tail holds
 * an open ask (its index in `jobs`). Returns how many were looked at.
 */
export function readTails(
  jobs: readonly TailJob[],
  adapterOf: (agent: string) => Adapter | undefined,
  go: () => boolean,
  found: (k: number, contributions: Contribution[]) => void,
): number {
  let k = 0
  for (; k < jobs.length; k++) {
    if (!go()) break
    const job = jobs[k]!
    const adapter = adapterOf(job.agent)
    if (!adapter) continue
    const contributions = tailContributions(adapter, job.match, job.path, job.size)
    if (contributions?.some(asks)) found(k, contributions)
  }

  return k
}
