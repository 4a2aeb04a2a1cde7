/**
 * OpenCode 1.18.33's screens as the conformance runs captured them (tmux capture-pane of the real
 * TUI; blank lines between blocks were dropped by the capture script, nothing else changed), read
 * with OpenCode's screen patterns.
 */
import fs from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'

import {screenMatcher} from '../../../src/adapters/screen.js'

const REAL = path.resolve('test/fixtures/opencode/real-1.18.33')
const screen = (name: string): string => fs.readFileSync(path.join(REAL, name), 'utf8')
const {match} = screenMatcher()

describe('OpenCode 1.18.33 screens', () => {
  it.each([
    ['screen-approval.txt', 'approval', 'Access external directory /etc'],
    ['screen-question.txt', 'question', 'Which colour should the button be?'],
    ['screen-retrying.txt', 'busy', undefined],
    ['screen-idle-after-reject.txt', 'idle', undefined],
  ])('%s reads %s', (file, kind, text) => {
    const m = match('opencode', screen(file))
    expect(m?.kind).toBe(kind)
    if (text !== undefined) expect(m?.text).toBe(text)
  })

  it('declares the dialog keys seen working: Enter allows once, Escape rejects', async () => {
    const {opencodeScreenPatterns} = await import('../../../src/adapters/opencode/screen-patterns.js')
    expect(opencodeScreenPatterns.keys).toEqual({approve: ['Enter'], deny: ['Escape']})
  })
})
