/**
 * Files OpenCode 1.18.33 wrote in the conformance runs (test/fixtures/opencode/real-1.18.33),
 * read by the adapter as the engine hands them over.
 *
 * rejected.db / rejected.log: the TUI asked to read /etc/hostname (an external directory), the
 * user pressed Esc (Reject). The step stays `finish: "tool-calls"`, the read part ends in
 * `error: "The user rejected permission to use this specific tool call."`, OpenCode asks the model
 * nothing more and its log has no line after `message=asking`: the turn is over.
 */
import fs from 'node:fs'
import path from 'node:path'
import {beforeEach, describe, expect, it} from 'vitest'

import {clearOpencodeCache, composeOpencode, opencodeLogParser} from '../../../src/adapters/opencode/index.js'
import {readDb} from './helpers.js'

const REAL = path.resolve('test/fixtures/opencode/real-1.18.33')

beforeEach(() => clearOpencodeCache())

describe('OpenCode 1.18.33, real files', () => {
  it('a rejected permission settles the turn, and the ask the log still shows is not laid over it', () => {
    const [db] = readDb(path.join(REAL, 'rejected.db'))
    expect(db!.facts.settled).toBe(true)
    expect(db!.extra?.['tail']).toBe('rejected')
    expect(db!.facts.messages).toBe(2)

    const state = opencodeLogParser.init('log', {kind: 'jsonl', nativeId: ''})
    let offset = 0
    for (const l of fs.readFileSync(path.join(REAL, 'rejected.log'), 'utf8').split('\n').filter(Boolean)) {
      opencodeLogParser.line(state, l, offset)
      offset += Buffer.byteLength(l) + 1
    }

    const log = opencodeLogParser.contributions(state, 'log', {kind: 'jsonl', nativeId: ''})
    // The log alone still says "asking" (OpenCode writes nothing on Reject) …
    expect(log.map((c) => c.nativeId)).toEqual([db!.nativeId])
    // … the composed session does not.
    const facts = composeOpencode(db!.nativeId, [db!, ...log])
    expect(facts.approval).toBeNull()
    expect(facts.settled).toBe(true)
  })
})
