/**
 * Recent first, with the asks: a recent-first pass leaves old files unread (defer.ts), but an open
 * question or permission prompt sits at the end of its transcript, and such a session stays in
 * the inbox however old it is (src/core/store/listing.ts). So each file left unread is looked at
 * from its last bytes: its own adapter's parser reads the complete lines there, and a file whose
 * tail ends on an open ask gives its contributions now. They stand in for the file's until the
 * later full pass reads it from its start and replaces them: the files row written with them
 * marks the file unread (UNREAD_MTIME: no stat matches it, and it holds no parser state); until then the session shows with what the tail holds (its title and
 * message count may be partial), and the listing says it is partial (`partial`, `unread_files`).
 */
import fs from 'node:fs'

import {fileMark} from '../store/files.js'
import type {Store} from '../store/store.js'
import type {Adapter, Contribution, FileMatch} from './adapter.js'
import type {Discovered} from './discover.js'
import {openRegular} from './file-read.js'
import {feedLine} from './jsonl-line.js'
import type {SessionKey} from './recompose.js'

/**
 * The first look at a file's end; grown eightfold while it holds no complete line. An agent writes
 * bookkeeping lines after its ask: about 1 KB after a 1.5 KB question line in a real transcript of the
 * pinned version (the question-full.jsonl fixture, lines 20 to 23 and 33).
 */
const FIRST_TAIL = 16 * 1024
/** A last line longer than this is not looked at (the full pass reads it). */
const MAX_TAIL = 1 << 20

/** The mtime of a files row that marks a file unread: no stat has it, so every pass reads the file from its start. */
export const UNREAD_MTIME = -1

/** What a file's tail says: its parser's contributions, when one of them holds an open ask. */
export interface TailAsk {
  readonly path: string
  readonly agent: string
  readonly st: Pick<fs.Stats, 'dev' | 'ino' | 'size'>
  readonly contributions: readonly Contribution[]
}

/** Does this contribution hold an open question or permission prompt? */
const asks = (c: Contribution): boolean =>
  (c.facts.question !== null && c.facts.question !== undefined) || (c.facts.approval !== null && c.facts.approval !== undefined)

/**
 * The contributions the complete lines at the end of a JSONL file give, read with the adapter's
 * own parser from a fresh state (null: no parser, not readable, or no complete line in MAX_TAIL).
 */
export function tailContributions(adapter: Adapter, match: FileMatch & {kind: 'jsonl'}, file: string, size: number): Contribution[] | null {
  const parser = adapter.jsonl
  if (!parser || size <= 0) return null
  // A regular file only, as every read of the engine (file-read.ts): not a FIFO or a link put in its place.
  const opened = openRegular(file)
  if (opened === null) return null
  const {fd} = opened
  try {
    for (let want = FIRST_TAIL; want <= MAX_TAIL * 8; want *= 8) {
      const len = Math.min(want, size, MAX_TAIL)
      const start = size - len
      const buf = Buffer.allocUnsafe(len)
      const n = fs.readSync(fd, buf, 0, len, start)
      // The first line is cut unless the tail is the whole file: lines start after its newline.
      const first = start === 0 ? 0 : buf.indexOf(10) + 1
      if (start > 0 && (first === 0 || first >= n)) {
        if (len === MAX_TAIL || len === size) return null
        continue
      }

      if (adapter.tailMayAsk && !adapter.tailMayAsk(buf.subarray(first, n))) return null
      const state = parser.init(file, match)
      let s = first
      while (s < n) {
        const nl = buf.indexOf(10, s)
        const end = nl === -1 || nl >= n ? n : nl
        // A last line without its newline is fed too: a malformed one is skipped (the parser refuses it).
        if (end > s) feedLine(parser, state, buf.toString('utf8', s, end), start + s)
        s = end + 1
      }

      return parser.contributions(state, file, match)
    }

    return null
  } catch {
    return null
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * How long the tails may take, in all: on a cold page cache each tail is a random read from disk
 * (minutes for 10,000 files on a busy disk). The files left unlooked-at come with the full pass,
 * as every unread file did before; the newest are looked at first.
 */
export const TAIL_BUDGET_MS = 1500

/** The files among `waiting` (indices into `found`) whose tails end on an open ask, newest first, within `budgetMs`. */
export function tailAsks(
  found: readonly Discovered[],
  sts: readonly (fs.Stats | undefined)[],
  waiting: ReadonlySet<number>,
  budgetMs = TAIL_BUDGET_MS,
): TailAsk[] {
  const out: TailAsk[] = []
  const until = performance.now() + budgetMs
  const order = [...waiting].sort((a, b) => (sts[b]?.mtimeMs ?? 0) - (sts[a]?.mtimeMs ?? 0))
  for (const [n, i] of order.entries()) {
    if ((n & 31) === 0 && performance.now() > until) break
    const d = found[i]!
    const st = sts[i]
    if (d.match.kind !== 'jsonl' || !st) continue
    const contributions = tailContributions(d.adapter, d.match, d.path, st.size)
    if (contributions?.some(asks)) out.push({agent: d.adapter.agent, contributions, path: d.path, st})
  }

  return out
}

/**
 * Write the tails' contributions, each file's row marked unread (UNREAD_MTIME), and recompose their
 * sessions, in one transaction (counted in `stats`). `recompose` is the engine's (its adapters'
 * compose, the overlays).
 */
export function commitTailAsks(
  store: Store,
  found: readonly TailAsk[],
  recompose: (sessions: readonly SessionKey[]) => {sessions: number; transitions: number},
  guard: (() => void) | null,
  stats: {sessionsChanged: number; transitions: number},
  now: number,
): void {
  if (found.length === 0) return
  const done = store.tx(() => {
    guard?.()
    const affected = new Map<string, SessionKey>()
    for (const t of found) {
      // A file another pass has read meanwhile keeps what that pass stored.
      const cur = fileMark(store, t.path)
      if (cur !== null && cur.mtimeMs !== UNREAD_MTIME) continue
      const {dev, ino, size} = t.st
      store.saveFile({
        agent: t.agent,
        dev,
        ino,
        kind: 'jsonl',
        holder: null,
        tailTried: null,
        fp: null,
        mtimeMs: UNREAD_MTIME,
        offset: 0,
        parseErrors: 0,
        path: t.path,
        readAt: now,
        size,
        state: null,
      })
      const rows = t.contributions.map((c) => ({data: JSON.stringify(c), nativeId: c.nativeId}))
      for (const nativeId of store.replaceContributions(t.path, t.agent, rows))
        affected.set(`${t.agent}\0${nativeId}`, {agent: t.agent, nativeId})
    }

    return recompose([...affected.values()])
  })
  stats.sessionsChanged += done.sessions
  stats.transitions += done.transitions
}
