/**
 * Recent first, with the asks: a recent-first pass leaves old files unread (defer.ts), but an open
 * question or permission prompt sits at the end of its transcript, and such a session stays in
 * the inbox however old it is (src/core/store/listing.ts). So each file left unread is looked at
 * from its last bytes (tail-read.ts): its own adapter's parser reads the lines there from the one
 * its byte test points at, and a file whose tail ends on an open ask gives its contributions now. They stand in for the file's until the
 * later full pass reads it from its start and replaces them: the files row written with them
 * marks the file unread (UNREAD_MTIME: no stat matches it, and it holds no parser state); until then the session shows with what the tail holds (its title and
 * message count may be partial), and the listing says it is partial (`partial`, `unread_files`).
 */
import type fs from 'node:fs'

import {fileMark} from '../store/files.js'
import type {Store} from '../store/store.js'
import type {Adapter, Contribution} from './adapter.js'
import type {Discovered} from './discover.js'
import type {SessionKey} from './recompose.js'
import {readsTails, readTails, type TailJob} from './tail-read.js'

/** The mtime of a files row that marks a file unread: no stat has it, so every pass reads the file from its start. */
export const UNREAD_MTIME = -1

/** What a file's tail says: its parser's contributions, when one of them holds an open ask. */
export interface TailAsk {
  readonly path: string
  readonly agent: string
  readonly st: Pick<fs.Stats, 'dev' | 'ino' | 'size'>
  readonly contributions: readonly Contribution[]
}

/** A file a recent-first pass leaves unread whose tail may show an ask: what to read (`job`, plain data), its adapter and stat. */
export interface TailFile {
  readonly job: TailJob
  readonly adapter: Adapter
  readonly st: Pick<fs.Stats, 'dev' | 'ino' | 'size'>
}

/**
 * How long the tails may take, in all, when the recent files take less: on a cold page cache each
 * tail is a random read from disk (minutes for 10,000 files on a busy disk). The files left
 * unlooked-at come with the full pass, as every unread file did before; the newest are looked at
 * first. With a read worker the tails are read there while the engine reads the recent files, so
 * they have at least as long as those take (read-share.ts).
 */
export const TAIL_BUDGET_MS = 1500

/** The files among `waiting` (indices into `found`) whose tails may end on an ask (Adapter.tailAskAt), newest first. */
export function tailFiles(found: readonly Discovered[], sts: readonly (fs.Stats | undefined)[], waiting: ReadonlySet<number>): TailFile[] {
  const out: (TailFile & {mtimeMs: number})[] = []
  for (const i of waiting) {
    const d = found[i]!
    const st = sts[i]
    if (d.match.kind !== 'jsonl' || !st || !readsTails(d.adapter)) continue
    out.push({adapter: d.adapter, job: {agent: d.adapter.agent, match: d.match, path: d.path, size: st.size}, mtimeMs: st.mtimeMs, st})
  }

  return out.sort((a, b) => b.mtimeMs - a.mtimeMs)
}

/** The asks among `files` that `found` (contributions by index into `files`) holds. */
export function tailAsksOf(files: readonly TailFile[], found: ReadonlyMap<number, readonly Contribution[]>): TailAsk[] {
  return [...found].map(([k, contributions]) => ({agent: files[k]!.job.agent, contributions, path: files[k]!.job.path, st: files[k]!.st}))
}

/** Read the tails of `files` on this thread, in order, within `budgetMs`: those that end on an open ask. */
export function readTailsHere(files: readonly TailFile[], budgetMs = TAIL_BUDGET_MS): TailAsk[] {
  const until = performance.now() + budgetMs
  const found = new Map<number, Contribution[]>()
  const adapters = new Map(files.map((f) => [f.job.agent, f.adapter]))
  let n = 0
  readTails(
    files.map((f) => f.job),
    (agent) => adapters.get(agent),
    () => (n++ & 31) !== 0 || performance.now() <= until,
    (k, c) => found.set(k, c),
  )
  return tailAsksOf(files, found)
}

/** The files among `waiting` (indices into `found`) whose tails end on an open ask, newest first, within `budgetMs`. */
export function tailAsks(
  found: readonly Discovered[],
  sts: readonly (fs.Stats | undefined)[],
  waiting: ReadonlySet<number>,
  budgetMs = TAIL_BUDGET_MS,
): TailAsk[] {
  return readTailsHere(tailFiles(found, sts, waiting), budgetMs)
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
