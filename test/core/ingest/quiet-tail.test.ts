/**
 * A complete last line without its newline (Claude Code 2.1.328 leaves the line it wrote last so
 * until the next one): read once the file has been quiet for QUIET_TAIL_MS, with the same facts as
 * the same lines ending in a newline; a line still being written (not whole JSON) waits.
 * On a real transcript the CLI wrote (test/fixtures/claude-code/real-2.1.328/approval-full.jsonl).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {ADAPTERS} from '../../../src/adapters/index.js'
import {Ingester} from '../../../src/core/ingest/engine.js'
import {QUIET_TAIL_MS} from '../../../src/core/ingest/read-worker.js'
import {Store} from '../../../src/core/store/store.js'
import {claudeTranscriptPath, writeFile} from '../../helpers/cli.js'

const REAL = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/claude-code/real-2.1.328/approval-full.jsonl')
const lines = fs.readFileSync(REAL, 'utf8').split('\n').filter(Boolean)
const SID = (JSON.parse(lines[0]!) as {sessionId: string}).sessionId
/** Up to and including the last assistant line: the one that decides the state. */
const upTo = lines.findLastIndex((l) => (JSON.parse(l) as {type?: string}).type === 'assistant')
const body = lines.slice(0, upTo + 1)

let dir: string
let stores: Store[] = []
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-quiet-'))
})
afterEach(() => {
  for (const s of stores) s.close()
  stores = []
  fs.rmSync(dir, {force: true, recursive: true})
})

function index(name: string, text: string, ageMs: number): {facts: Record<string, unknown>; state: string | null; sync: () => void} {
  const home = path.join(dir, name)
  const file = claudeTranscriptPath(home, '/real', SID)
  writeFile(file, text)
  const t = (Date.now() - ageMs) / 1000
  fs.utimesSync(file, t, t)
  const store = new Store(path.join(dir, `${name}-cast`))
  stores.push(store)
  const ingester = new Ingester(store, ADAPTERS, {env: {HOME: home}, home}, {clock: () => Date.now(), device: 'box', me: 'me'})
  ingester.sync()
  const row = store.loadSessions()[0]!
  return {
    facts: row.facts as unknown as Record<string, unknown>,
    state: row.state,
    sync: () => {
      fs.utimesSync(file, (Date.now() - QUIET_TAIL_MS - 1000) / 1000, (Date.now() - QUIET_TAIL_MS - 1000) / 1000)
      ingester.sync()
    },
  }
}

describe('a last line without its newline (real Claude Code 2.1.328 transcript)', () => {
  it('waits while the file is fresh, and is read once quiet with the same facts as a clean file', () => {
    const clean = index('clean', body.join('\n') + '\n', 0)
    const fresh = index('fresh', body.join('\n'), 0)
    // Fresh: the last line is not read yet (one message fewer than the clean file).
    expect(fresh.facts.messages).not.toEqual(clean.facts.messages)
    const quiet = index('quiet', body.join('\n'), QUIET_TAIL_MS + 2000)
    const pick = (f: Record<string, unknown>) => ({
      messages: f.messages,
      settled: f.settled,
      ask: f.ask,
      lastActivityAt: f.lastActivityAt,
      title: f.title,
    })
    expect(pick(quiet.facts)).toEqual(pick(clean.facts))
    // The fresh one, once quiet, catches up.
    fresh.sync()
    const again = stores[1]!.loadSessions()[0]!
    expect(pick(again.facts as unknown as Record<string, unknown>)).toEqual(pick(clean.facts))
  })

  it('half a line is never read, however quiet; its rest and newline are read as one line', () => {
    const last = body.at(-1)!
    const half = index('half', body.slice(0, -1).join('\n') + '\n' + last.slice(0, Math.floor(last.length / 2)), QUIET_TAIL_MS + 2000)
    const clean = index('clean2', body.join('\n') + '\n', 0)
    expect(half.facts.messages).not.toEqual(clean.facts.messages)
    const file = claudeTranscriptPath(path.join(dir, 'half'), '/real', SID)
    fs.appendFileSync(file, last.slice(Math.floor(last.length / 2)) + '\n')
    half.sync()
    const row = stores[0]!.loadSessions()[0]!
    expect((row.facts as unknown as Record<string, unknown>).messages).toEqual(clean.facts.messages)
  })
})
