/**
 * A full pass's discovery, stat and comparison in one walk (engine.ts sync): each file an
 * adapter matches is stat'ed as it is reached and compared with its mark (file-marks.ts
 * loadStatMarks, one statement, columnar). A file whose stat equals its mark, and that nothing
 * else can have changed (no last line waiting, no holder process now or recorded, not a SQLite
 * source), leaves nothing behind: no Discovered entry, no Stats kept, no row loaded. What the pass
 * keeps are the files to look at, with their stats and full rows, and the rows of files gone.
 */
import type fs from 'node:fs'

import {type FileMarkRow, loadFileMarks, loadFileRow, loadStatMarks, MARK_HOLDER, MARK_SQLITE, MARK_TAIL} from '../store/file-marks.js'
import type {FileRow, Store} from '../store/store.js'
import type {Adapter, AdapterEnv, AdapterRules} from './adapter.js'
import {type Discovered, walkFiles} from './discover.js'
import {sameStat} from './same-stat.js'
import {statOrNull, unchangedFile} from './stat-sweep.js'

export interface StatPass<A extends AdapterRules = Adapter> {
  /** The files a pass reads or looks at further: changed, new, gone since the walk, or not skippable on a stat. */
  readonly found: Discovered<A>[]
  /** Their stats (undefined: gone since the walk). */
  readonly sts: (fs.Stats | undefined)[]
  /** What the store holds for each of `found` and `gone` (the full row, parser state included). */
  readonly known: Map<string, FileRow>
  /** Rows of files the store knows that the walk did not find (any agent; the engine decides). */
  readonly gone: FileRow[]
  /** Rows of unchanged files modified since `recentFrom` or with a last line waiting (the live ingester's stat sweep). */
  readonly recent: FileRow[]
  /** Every file the walk matched. */
  files: number
}

const NOT_BY_STAT = MARK_TAIL | MARK_HOLDER | MARK_SQLITE

/**
 * A pass walked over the adapters' path rules alone (src/lib/ingest/quick-sync.ts), with the
 * holders it was walked with: a sync that then needs the adapters reads from it instead of
 * walking again (engine.ts sync, SyncOptions.walked).
 */
export interface WalkedPass {
  readonly pass: StatPass<AdapterRules>
  readonly holders: ReadonlyMap<string, number>
}

/** A walked pass with each file's adapter in place of its path rules (files of an agent not in `byAgent` left out). */
export function adoptPass(p: StatPass<AdapterRules>, byAgent: ReadonlyMap<string, Adapter>): StatPass {
  const found: Discovered[] = []
  const sts: (fs.Stats | undefined)[] = []
  for (const [i, d] of p.found.entries()) {
    const adapter = byAgent.get(d.adapter.agent)
    if (!adapter) continue
    found.push({adapter, match: d.match, path: d.path})
    sts.push(p.sts[i])
  }

  return {files: p.files, found, gone: p.gone, known: p.known, recent: p.recent, sts}
}

export function statPass<A extends AdapterRules>(
  store: Store,
  adapters: readonly A[],
  ctx: AdapterEnv,
  holders: ReadonlyMap<string, number>,
  progress: (() => void) | null,
  recentFrom: number,
): StatPass<A> {
  const marks = loadStatMarks(store)
  const seen = new Uint8Array(marks.paths.length)
  const pass: StatPass<A> = {files: 0, found: [], gone: [], known: new Map(), recent: [], sts: []}
  const now = Date.now()
  const look = (d: Discovered<A>, st: fs.Stats | undefined, row: FileRow | undefined): void => {
    pass.found.push(d)
    pass.sts.push(st)
    if (row) pass.known.set(d.path, row)
  }

  walkFiles(adapters, ctx, progress, (adapter, p, match) => {
    pass.files++
    const i = marks.index.get(p)
    const st = statOrNull(p)
    if (i === undefined) return look({adapter, match, path: p}, st, undefined)
    seen[i] = 1
    if (
      (marks.flags[i]! & NOT_BY_STAT) === 0 &&
      !holders.has(p) &&
      st !== undefined &&
      st.isFile() &&
      marks.dev[i] === st.dev &&
      marks.ino[i] === st.ino &&
      marks.size[i] === st.size &&
      marks.mtimeMs[i] === Math.floor(st.mtimeMs)
    ) {
      if (marks.mtimeMs[i] >= recentFrom) {
        const row = loadFileRow(store, p)
        if (row) pass.recent.push(row)
      }

      return
    }

    // Anything else is decided on the full row, as the engine always has (stat-sweep.ts unchangedFile).
    const row = loadFileRow(store, p)
    if (row && unchangedFile(match.kind, st, row, holders.has(p), now)) {
      if (row.mtimeMs >= recentFrom || row.offset < row.size) pass.recent.push(row)
      return
    }

    look({adapter, match, path: p}, st, row)
  })
  for (const [i, p] of marks.paths.entries()) {
    // Hook state and screen readings are sources, not files: no walk finds them, none is gone.
    if (seen[i] || p.includes('://')) continue
    const row = loadFileRow(store, p)
    if (row) pass.gone.push(row)
  }

  return pass
}

/**
 * What the store holds for a watcher's pass over a few paths: marks only, and the full row (the
 * parser's state) for the JSONL files this pass may read (changed, or held open by an agent
 * process now or before).
 */
export function watchedRows(
  store: Store,
  heldAgents: readonly string[],
  found: readonly Discovered[],
  sts: readonly (fs.Stats | undefined)[],
  holders: ReadonlyMap<string, number>,
): Map<string, FileRow> {
  const known: Map<string, FileRow> = loadFileMarks(store, heldAgents)
  for (const [i, d] of found.entries()) {
    const mark = known.get(d.path) as FileMarkRow | undefined
    if (!mark || mark.stateLoaded || mark.kind !== 'jsonl') continue
    if (sameStat(mark, sts[i]) && !mark.held && !holders.has(d.path)) continue
    const full = loadFileRow(store, d.path)
    if (full) known.set(d.path, full)
  }

  return known
}
