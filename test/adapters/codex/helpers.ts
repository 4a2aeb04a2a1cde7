/**
 * Feed Codex fixtures the way the ingest engine does: walk the roots, match each file, split
 * the bytes on '\n', give the parser each complete line with its byte offset (a partial last line
 * waits), optionally round-trip the state through JSON between lines, then compose.
 */
import {readFileSync, readdirSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {codex} from '../../../src/adapters/codex/index.js'
import type {RolloutState} from '../../../src/adapters/codex/index.js'
import type {AdapterEnv, CheckedContribution, Contribution, FileMatch} from '../../../src/core/ingest/adapter.js'
import {feedLine, withParseErrors} from '../../../src/core/ingest/jsonl-line.js'
import type {SessionFacts} from '../../../src/core/model/types.js'

export const HOME = fileURLToPath(new URL('../../fixtures/codex', import.meta.url))
export const ctx: AdapterEnv = {env: {CODEX_HOME: HOME}, home: '/home/nobody'}

export const IDS = {
  aborted: '019dd301-8f42-7a15-9c26-d3e7b0a4f605',
  archived: '0199f0c2-9e37-7239-b57b-0a6d4c2e8f09',
  error: '019dd2f0-1a9b-7d03-b6e4-4c8a2e7f1003',
  legacy: '4c1f2a6e-8b3d-4e59-9a71-0d2c6b8e3f11',
  older: '019a2e10-44d6-734a-8c8c-5e9f1b7a2d10',
  retry: '019dd2f5-33c1-7e84-a0f7-6b1d9c5e2a04',
  review: '019dd0a6-c4e8-7017-b359-7e2f4a8d0c07',
  rollback: '019dd3a0-6d15-7128-a46a-c8b5e1f93d08',
  settled: '019dd0a1-5c2e-7a41-9b3e-2f6c8d1e4a01',
  spawned: '019dd0a3-2b7d-7f96-8e48-15a9c6d3b706',
  working: '019dd0b4-7e10-7c22-8a55-91d3f0b2c602',
} as const

export interface Line {
  readonly text: string
  readonly offset: number
}

/** Complete lines of a buffer with their byte offsets; a trailing partial line is left out. */
export function completeLines(bytes: Buffer): Line[] {
  const out: Line[] = []
  let start = 0
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, start)) {
    out.push({offset: start, text: bytes.subarray(start, i).toString('utf8')})
    start = i + 1
  }

  return out
}

/** Every file under the adapter's roots that it matches, like the engine's discovery. */
export function discover(env: AdapterEnv = ctx): {path: string; match: FileMatch}[] {
  const out = new Map<string, FileMatch>()
  const walk = (dir: string, depth: number): void => {
    let entries
    try {
      entries = readdirSync(dir, {withFileTypes: true})
    } catch {
      return
    }

    for (const e of entries) {
      const p = join(dir, e.name)
      if (e.isDirectory()) {
        if (depth < 12 && !codex.skipDir?.(p)) walk(p, depth + 1)
      } else if (!out.has(p)) {
        const match = codex.match(p, env)
        if (match) out.set(p, match)
      }
    }
  }

  for (const root of codex.roots(env)) walk(root, 0)
  return [...out].map(([path, match]) => ({match, path}))
}

export function rolloutPath(nativeId: string): string {
  const found = discover().find((d) => d.match.kind === 'jsonl' && d.match.nativeId === nativeId)
  if (!found) throw new Error(`no rollout for ${nativeId}`)
  return found.path
}

export interface Fed {
  readonly state: RolloutState
  readonly malformed: number
  readonly contributions: Contribution[]
  readonly match: FileMatch & {kind: 'jsonl'}
}

export interface FeedOptions {
  /** JSON round-trip the state before every line, as the engine does between runs. */
  readonly roundTrip?: boolean
  /** Feed only the first n complete lines. */
  readonly lines?: number
  /** Lines appended after the file's own (as if written later). */
  readonly append?: readonly string[]
}

export function feed(path: string, opts: FeedOptions = {}): Fed {
  const match = codex.match(path, ctx)
  if (!match || match.kind !== 'jsonl') throw new Error(`not a rollout: ${path}`)
  const parser = codex.jsonl!
  const bytes = readFileSync(path)
  let lines = completeLines(bytes)
  if (opts.lines !== undefined) lines = lines.slice(0, opts.lines)
  let end = lines.length > 0 ? lines.at(-1)!.offset + Buffer.byteLength(lines.at(-1)!.text) + 1 : 0
  const extra: Line[] = []
  for (const text of opts.append ?? []) {
    extra.push({offset: end, text})
    end += Buffer.byteLength(text) + 1
  }

  let state = parser.init(path, match) as RolloutState
  let malformed = 0
  for (const {offset, text} of [...lines, ...extra]) {
    if (opts.roundTrip) state = JSON.parse(JSON.stringify(state)) as RolloutState
    if (!feedLine(parser, state, text, offset)) malformed++
  }

  return {contributions: withParseErrors(parser.contributions(state, path, match), malformed), malformed, match, state}
}

/** Every contribution the fixture tree makes, grouped by session. */
export function allContributions(): Map<string, Contribution[]> {
  const bySession = new Map<string, Contribution[]>()
  const add = (c: Contribution): void => {
    const list = bySession.get(c.nativeId) ?? []
    list.push(c)
    bySession.set(c.nativeId, list)
  }

  for (const d of discover()) {
    if (d.match.kind === 'jsonl') {
      for (const c of feed(d.path).contributions) add(c)
    } else if (d.match.kind === 'whole') {
      for (const c of codex.parseWhole!(d.path, readFileSync(d.path, 'utf8'), d.match)) add(c)
    }
  }

  return bySession
}

/** The composed facts of one session, with optional extra contributions (hooks, process claims). */
export function factsOf(nativeId: string, extra: readonly CheckedContribution[] = []): SessionFacts {
  const contributions = [...(allContributions().get(nativeId) ?? []), ...extra]
  return codex.compose!(nativeId, contributions)
}

/** Facts of one rollout file alone (no index), composed. */
export function rolloutFacts(nativeId: string, opts: FeedOptions = {}): SessionFacts {
  return codex.compose!(nativeId, feed(rolloutPath(nativeId), opts).contributions)
}

export function ms(iso: string): number {
  return Date.parse(iso)
}
