/**
 * Recent first: which files a pass may leave, unread and unrecorded, to a
 * later full pass.
 */
import type fs from 'node:fs'

import type {FileRow} from '../store/store.js'
import type {Discovered} from './discover.js'
import {sameStat} from './same-stat.js'

/**
 * A pass that answers from the files that can be in the inbox and leaves the others to a later
 * full pass. A JSONL file (and a whole file naming the same session) waits only when every file of
 * its session (its own, its parent's, its subagents') was last modified before `olderThan` and the
 * session carries none of cast's records.
 */
export interface DeferRule {
  /** Epoch ms: files modified before this (the recency window's start) may wait. */
  readonly olderThan: number
  /** `${agent}\0${nativeId}` of sessions with cast's own records: never deferred. */
  readonly keep: ReadonlySet<string>
  /** Defer only when the files that would wait hold at least this many bytes (else read all). */
  readonly minBytes: number
}

type Stats = readonly (fs.Stats | undefined)[]

/** A session's group: its own id, or its parent's for a subagent's file. */
function groupOf(d: Discovered): string | null {
  if (d.match.kind !== 'jsonl') return null
  return `${d.adapter.agent}\0${d.match.parentNativeId ?? d.match.nativeId}`
}

const idOf = (d: Discovered): string => `${d.adapter.agent}\0${(d.match as {nativeId: string}).nativeId}`

/** Which of `found` a recent-first pass leaves unread (DeferRule): indices into `found`. */
export function deferredFiles(found: readonly Discovered[], sts: Stats, known: ReadonlyMap<string, FileRow>, rule: DeferRule): Set<number> {
  const hot = new Set<string>()
  const candidates: number[] = []
  for (const [i, d] of found.entries()) {
    const g = groupOf(d)
    if (g === null) continue
    const st = sts[i]
    if (!st) continue
    const prev = known.get(d.path)
    if (sameStat(prev, st)) continue
    if (st.mtimeMs >= rule.olderThan || rule.keep.has(g) || rule.keep.has(idOf(d))) hot.add(g)
    else candidates.push(i)
  }

  const waiting = new Set<number>()
  const waitingIds = new Set<string>()
  let bytes = 0
  for (const i of candidates) {
    const d = found[i]!
    if (hot.has(groupOf(d)!)) continue
    waiting.add(i)
    waitingIds.add(idOf(d))
    bytes += sts[i]?.size ?? 0
  }

  if (bytes < rule.minBytes) return new Set()
  // A whole file about one of those sessions (a subagent's .meta.json) waits with it.
  for (const [i, d] of found.entries()) {
    if (d.match.kind !== 'whole' || d.match.nativeId === undefined) continue
    const st = sts[i]
    if (!st || st.mtimeMs >= rule.olderThan || known.has(d.path)) continue
    if (waitingIds.has(`${d.adapter.agent}\0${d.match.nativeId}`)) waiting.add(i)
  }

  return waiting
}
