/**
 * OpenCode 1.18.33's log (`log/opencode.log`) read for pending permissions, on a log the real CLI
 * wrote (test/fixtures/opencode/real-1.18.33): the TUI asked for an external directory
 * (`message=asking id=per_…`), the user chose "Allow once", and the loop went on.
 */
import fs from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'

import {
  askText,
  composeOpencode,
  logFields,
  matchOpencodeFile,
  opencodeLogParser,
  skipOpencodeDir,
} from '../../../src/adapters/opencode/index.js'
import type {LogState} from '../../../src/adapters/opencode/log.js'
import {EMPTY_FACTS} from '../../../src/core/model/types.js'

const REAL = path.resolve('test/fixtures/opencode/real-1.18.33')
const SESSION = 'ses_dcf2d3554ffetknb5TiCqIXU2w'

function feed(lines: readonly string[]): LogState {
  const state = opencodeLogParser.init('/x/log/opencode.log', {kind: 'jsonl', nativeId: ''})
  let offset = 0
  for (const l of lines) {
    expect(opencodeLogParser.line(state, l, offset)).toBe(true)
    offset += Buffer.byteLength(l) + 1
  }

  return state
}

const real = fs.readFileSync(path.join(REAL, 'approval-allowed.log'), 'utf8').split('\n').filter(Boolean)
const asking = real.findIndex((l) => l.includes('message=asking'))

describe('opencode log (1.18.33)', () => {
  it('is read: log/opencode.log is matched and its folder walked', () => {
    const ctx = {env: {XDG_DATA_HOME: '/d'}, home: '/h'}
    expect(matchOpencodeFile('/d/opencode/log/opencode.log', ctx)).toEqual({kind: 'jsonl', nativeId: '', role: 'log'})
    expect(matchOpencodeFile('/d/opencode/log/other.txt', ctx)).toBeNull()
    expect(skipOpencodeDir('/d/opencode/log')).toBe(false)
    expect(skipOpencodeDir('/d/opencode/repos')).toBe(true)
  })

  it('splits key=value fields, quoted values unquoted', () => {
    const f = logFields(real[asking]!)
    expect(f['message']).toBe('asking')
    expect(f['id']).toMatch(/^per_/)
    expect(f['permission']).toBe('external_directory')
    expect(f['patterns']).toBe('["/etc/*"]')
    expect(logFields('timestamp=x run=1 message="creating instance" directory=/p')['message']).toBe('creating instance')
  })

  it('an asking line opens a permission on the session the run named last', () => {
    const state = feed(real.slice(0, asking + 1))
    const c = opencodeLogParser.contributions(state, '/x/log/opencode.log', {kind: 'jsonl', nativeId: ''})
    expect(c).toHaveLength(1)
    expect(c[0]!.nativeId).toBe(SESSION)
    expect((c[0]!.extra!['approval'] as {text: string}).text).toBe('Access external directory /etc/*')
  })

  it('the run going on in that session (after Allow) closes it', () => {
    const state = feed(real)
    const c = opencodeLogParser.contributions(state, '/x/log/opencode.log', {kind: 'jsonl', nativeId: ''})
    expect(c.map((x) => [x.nativeId, x.extra?.['approval']])).toEqual([[SESSION, undefined]])
  })

  it('a title request of the same session does not close it; another session of the run does not either', () => {
    const title = real.find((l) => l.includes('agent=title'))!
    const other = real.find((l) => l.includes('message=loop'))!.replace(/ses_\w+/, 'ses_someotherone')
    const state = feed([...real.slice(0, asking + 1), title, other])
    expect(Object.keys(state.asks)).toHaveLength(1)
  })

  it('a new process (another run) naming the session closes it', () => {
    const resumed = real.find((l) => l.includes('message=loop'))!.replace(/run=\w+/, 'run=0therrun')
    expect(Object.keys(feed([...real.slice(0, asking + 1), resumed]).asks)).toHaveLength(0)
  })

  it('compose: the pending permission lies over an unsettled turn, never over a settled one', () => {
    const state = feed(real.slice(0, asking + 1))
    const [log] = opencodeLogParser.contributions(state, '/x/log/opencode.log', {kind: 'jsonl', nativeId: ''})
    const db = (settled: boolean) => ({extra: {opencode: 'db'}, facts: {...EMPTY_FACTS, messages: 1, settled}, nativeId: SESSION})
    const open = composeOpencode(SESSION, [db(false), log!])
    expect(open.approval?.text).toBe('Access external directory /etc/*')
    expect(open.sources['approval']).toMatchObject({kind: 'log', ref: '/x/log/opencode.log'})
    expect(composeOpencode(SESSION, [db(true), log!]).approval).toBeNull()
  })

  it('names the permission as the dialog does', () => {
    expect(askText('external_directory', ['/etc/*'])).toBe('Access external directory /etc/*')
    expect(askText('bash', ['*'])).toBe('bash')
  })
})
