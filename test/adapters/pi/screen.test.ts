import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {piScreenPatterns} from '../../../src/adapters/pi/screen-patterns.js'
import {compileScreenPatterns, matchScreen} from '../../../src/adapters/screen.js'
import {FIXTURES} from './helpers.js'

// Screens of pi 0.73.1 captured with `tmux capture-pane -p -J` (200×50) in the conformance runs.
const screen = (name: string): string => readFileSync(join(FIXTURES, 'pi', 'real-0.73.1', `screen-${name}.txt`), 'utf8')
const patterns = compileScreenPatterns({}, [piScreenPatterns]).patterns[0]!
const read = (name: string) => matchScreen(screen(name), patterns)

describe('pi 0.73.1 screens', () => {
  it('a fresh TUI shows the editor: idle', () => {
    expect(read('fresh')?.kind).toBe('idle')
  })

  it('the spinner line is busy, with older errors above it', () => {
    expect(read('working')).toEqual({kind: 'busy', text: '⠸ Working...'})
  })

  it('waiting to retry is busy, not the error printed above it', () => {
    expect(read('retrying')).toEqual({kind: 'busy', text: '⠼ Retrying (1/3) in 2s... (escape to cancel)'})
  })

  it('retries spent: the last error line, the one pi shows only on screen', () => {
    expect(read('retry-failed')).toEqual({kind: 'error', text: 'Error: Retry failed after 3 attempts: 500 mock 500'})
  })

  it('an aborted turn is the editor again: idle', () => {
    expect(read('idle-aborted')?.kind).toBe('idle')
  })

  it('pi has no dialog, so no dialog keys', () => {
    expect(piScreenPatterns.approval).toEqual([])
    expect(piScreenPatterns.question).toEqual([])
    expect(piScreenPatterns.keys).toBeUndefined()
  })
})

describe('pi 0.73.1 screens: an error line is history once something follows it', () => {
  it('the answer after a retried error, captured before the file has it, is not an error', () => {
    const answered = screen('working').replace(/^ ⠸ Working\.\.\..*$/m, ' Answer after the retry.')

    expect(matchScreen(answered, patterns)?.kind).toBe('idle')
  })
})
