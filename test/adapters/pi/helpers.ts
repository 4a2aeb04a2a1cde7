/**
 * Feed pi session files the way the ingest engine does: match the path, split the bytes on '\n',
 * hand the parser each complete line with its byte offset (a partial last line waits), optionally
 * round-trip the state through JSON between lines, then compose with the engine's default.
 */
import {readFileSync, readdirSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {pi} from '../../../src/adapters/pi/index.js'
import type {PiState} from '../../../src/adapters/pi/index.js'
import type {AdapterEnv, Contribution, FileMatch} from '../../../src/core/ingest/adapter.js'
import {composeFacts} from '../../../src/core/ingest/compose.js'
import {feedLine, withParseErrors} from '../../../src/core/ingest/jsonl-line.js'
import type {SessionFacts} from '../../../src/core/model/types.js'

export const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url))
/** Our fixtures are laid out like a PI_CODING_AGENT_DIR. */
export const AGENT = join(FIXTURES, 'pi', 'agent')
export const REAL = join(FIXTURES, 'real', 'pi', 'large-session.head15.jsonl')
export const ctx: AdapterEnv = {env: {PI_CODING_AGENT_DIR: AGENT}, home: '/nonexistent-home'}

export const uuid = (n: number): string => `a2000000-0000-4000-8000-0000000000${String(n).padStart(2, '0')}`
export const at = (s: number): number => Date.parse('2026-08-01T10:00:00.000Z') + s * 1000

export interface Line {
  readonly text: string
  readonly offset: number
}

export function completeLines(bytes: Buffer): Line[] {
  const out: Line[] = []
  let start = 0
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, start)) {
    out.push({offset: start, text: bytes.subarray(start, i).toString('utf8')})
    start = i + 1
  }

  return out
}

/** Every session file of the fixture agent dir, as discovery finds them. */
export function discover(env: AdapterEnv = ctx): {path: string; match: FileMatch}[] {
  const out: {path: string; match: FileMatch}[] = []
  const walk = (dir: string, depth: number): void => {
    let entries
    try {
      entries = readdirSync(dir, {withFileTypes: true})
    } catch {
      return
    }

    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(dir, e.name)
      if (e.isDirectory()) {
        if (depth < 12 && !pi.skipDir?.(p)) walk(p, depth + 1)
      } else {
        const match = pi.match(p, env)
        if (match) out.push({match, path: p})
      }
    }
  }

  for (const root of pi.roots(env)) walk(root, 0)
  return out
}

export function sessionPath(n: number): string {
  const found = discover().find((d) => d.match.kind === 'jsonl' && d.match.nativeId === uuid(n))
  if (!found) throw new Error(`no session file for ${uuid(n)}`)
  return found.path
}

export interface FeedOptions {
  readonly roundTrip?: boolean
  readonly lines?: number
  readonly append?: readonly string[]
  /** Read the bytes from this file but present them at `path` (the real fixture). */
  readonly from?: string
}

export interface Fed {
  readonly state: PiState
  readonly rejected: number
  readonly contributions: Contribution[]
  readonly facts: SessionFacts
  readonly lines: Line[]
}

export function feed(path: string, opts: FeedOptions = {}): Fed {
  const match = pi.match(path, ctx)
  if (!match || match.kind !== 'jsonl') throw new Error(`not a pi session: ${path}`)
  const parser = pi.jsonl!
  let lines = completeLines(readFileSync(opts.from ?? path))
  if (opts.lines !== undefined) lines = lines.slice(0, opts.lines)
  let end = lines.length > 0 ? lines.at(-1)!.offset + Buffer.byteLength(lines.at(-1)!.text) + 1 : 0
  const all = [...lines]
  for (const text of opts.append ?? []) {
    all.push({offset: end, text})
    end += Buffer.byteLength(text) + 1
  }

  let state = parser.init(path, match) as PiState
  let rejected = 0
  for (const {offset, text} of all) {
    if (opts.roundTrip) state = JSON.parse(JSON.stringify(state)) as PiState
    if (!feedLine(parser, state, text, offset)) rejected++
  }

  const contributions = withParseErrors(parser.contributions(state, path, match), rejected)
  return {contributions, facts: composeFacts(contributions), lines: all, rejected, state}
}

export function facts(n: number, opts: FeedOptions = {}): SessionFacts {
  return feed(sessionPath(n), opts).facts
}

/** The line a fact's source points at. */
export function lineAt(fed: Fed, offset: number | undefined): string {
  return fed.lines.find((l) => l.offset === offset)?.text ?? ''
}
