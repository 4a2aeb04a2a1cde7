/**
 * The sync before a read (src/lib/ingest/quick-sync.ts) loads the adapters' parsers only when
 * something changed: the built CLI run as a user runs it, every ES module it loads recorded by a
 * loader hook (test/helpers/load-probe.mjs).
 */
import {execFile} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {BIN, makeHome, type TempHome} from '../helpers/cli.js'

const PROBE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'helpers', 'load-probe.mjs')
const NOW = '2026-12-02T07:00:00.000Z'
const ID = 'a1f0c2de-0001-4000-8000-000000000001'

/** An adapter module that is not its path rules (rules, paths, identity, screen patterns, the light definition, the unwritten run, text helpers). */
const PARSER_MODULE = /\/adapters\/[^/]+\/(?!(?:rules|paths|identity|definition|screen-patterns|unwritten|text)\.js$)[^/]+\.js$/

let h: TempHome
let runs = 0

beforeEach(() => {
  h = makeHome()
})

afterEach(() => {
  h.cleanup()
})

function line(rec: Record<string, unknown>): string {
  return (
    JSON.stringify({cwd: '/home/me/src/shop', isSidechain: false, sessionId: ID, userType: 'external', version: '2.1.170', ...rec}) + '\n'
  )
}

const PROMPT = line({
  message: {content: 'Plan the orders table migration', role: 'user'},
  parentUuid: null,
  timestamp: '2026-12-02T05:38:20.946Z',
  type: 'user',
  uuid: 'q1',
})
const REPLY = (uuid: string, parent: string, text: string, at: string): string =>
  line({
    message: {
      content: [{text, type: 'text'}],
      id: `msg_${uuid}`,
      model: 'claude-sonnet-4-5',
      role: 'assistant',
      stop_reason: 'end_turn',
      type: 'message',
    },
    parentUuid: parent,
    requestId: `req_${uuid}`,
    timestamp: at,
    type: 'assistant',
    uuid,
  })

function transcript(): string {
  return path.join(h.home, '.claude', 'projects', '-home-me-src-shop', `${ID}.jsonl`)
}

/** `cast sessions --json --all` with a fixed clock: its output, and every adapter module it loaded. */
function sessions(): Promise<{out: {sessions: {native_id: string; messages: number}[]}; stdout: string; adapters: string[]}> {
  const probe = path.join(h.dir, `probe-${runs++}`)
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', PROBE, BIN, 'sessions', '--json', '--all'],
      {env: {...h.env, CAST_LOAD_PROBE: probe, CAST_NOW: NOW}, timeout: 60_000},
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${error.message}\n${stderr}`))
        const loaded = fs.readFileSync(probe, 'utf8').split('\n')
        resolve({adapters: loaded.filter((u) => u.includes('/adapters/')), out: JSON.parse(stdout), stdout})
      },
    )
  })
}

describe('the sync before cast sessions', () => {
  it('loads no parser when nothing changed, and answers as the sync that read the file did', async () => {
    fs.mkdirSync(path.dirname(transcript()), {recursive: true})
    fs.writeFileSync(transcript(), PROMPT + REPLY('q2', 'q1', 'Two ways to do this.', '2026-12-02T05:39:20.946Z'))
    const first = await sessions()
    // The first sync reads the transcript: the probe sees the parser load (a probe that saw nothing would pass below).
    expect(first.adapters.some((u) => u.endsWith('/adapters/claude-code/transcript.js'))).toBe(true)
    expect(first.out.sessions.map((s) => s.native_id)).toEqual([ID])

    const again = await sessions()
    expect(again.adapters.filter((u) => PARSER_MODULE.test(u))).toEqual([])
    expect(again.adapters.some((u) => u.endsWith('/adapters/index.js'))).toBe(false)
    // It did walk the agents' folders (their path rules loaded).
    expect(again.adapters.some((u) => u.endsWith('/adapters/claude-code/paths.js'))).toBe(true)
    expect(again.stdout).toBe(first.stdout)
  })

  it('still reads a file that changed', async () => {
    fs.mkdirSync(path.dirname(transcript()), {recursive: true})
    fs.writeFileSync(transcript(), PROMPT + REPLY('q2', 'q1', 'Two ways to do this.', '2026-12-02T05:39:20.946Z'))
    const first = await sessions()
    expect(first.out.sessions[0]!.messages).toBe(2)
    await sessions() // a no-op between: the store is current

    fs.appendFileSync(
      transcript(),
      line({
        message: {content: 'Batches of 10k', role: 'user'},
        parentUuid: 'q2',
        timestamp: '2026-12-02T05:41:00.000Z',
        type: 'user',
        uuid: 'q3',
      }) + REPLY('q4', 'q3', 'Done: batches of 10k.', '2026-12-02T05:42:00.000Z'),
    )
    const changed = await sessions()
    expect(changed.adapters.some((u) => u.endsWith('/adapters/claude-code/transcript.js'))).toBe(true)
    expect(changed.out.sessions[0]!.messages).toBe(4)
  })

  it('the parser pattern tells a parser from a path rule (a pattern that matched nothing would pass)', () => {
    expect(PARSER_MODULE.test('file:///x/dist/adapters/claude-code/transcript.js')).toBe(true)
    expect(PARSER_MODULE.test('file:///x/dist/adapters/codex/compose.js')).toBe(true)
    expect(PARSER_MODULE.test('file:///x/dist/adapters/claude-code/paths.js')).toBe(false)
    expect(PARSER_MODULE.test('file:///x/dist/adapters/pi/rules.js')).toBe(false)
  })
})
