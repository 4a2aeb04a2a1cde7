/**
 * The facts a settle classifier reads (issue 14), from a transcript Claude Code 2.1.328 wrote in
 * the conformance runs: the prompt that started the turn, the tools it used, the last message.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'

import {compose, feedFile, PROJ} from './engine.js'

const REAL = fileURLToPath(new URL('../../fixtures/claude-code/real-2.1.328/', import.meta.url))

function facts(name: string) {
  const first = JSON.parse(
    readFileSync(join(REAL, name), 'utf8')
      .split('\n')
      .find((l) => l.includes('"sessionId"'))!,
  ) as {sessionId: string}
  const c = feedFile(join(REAL, name), {as: join(PROJ, `${first.sessionId}.jsonl`)}).contributions
  return compose(first.sessionId, c)
}

describe('Claude Code 2.1.328: the settle classifier facts', () => {
  it('a finished turn with a tool: its prompt, its tools, its last message', () => {
    const f = facts('approval-full.jsonl')
    expect(f.settled).toBe(true)
    expect(f.lastPromptText).toBeTruthy()
    expect(f.turnTools).toEqual(['Bash'])
    expect(f.lastAssistantText).toBe('Done writing.')
  })
})
