import {describe, expect, it} from 'vitest'

import {formatTally, tally} from '../../../src/core/model/tally.js'
import type {TallyRow} from '../../../src/core/model/tally.js'

function row(overrides: Partial<TallyRow>): TallyRow {
  return {bucket: 'working', live: false, pinned: false, quiet: false, state: 'working', ...overrides}
}

describe('tally', () => {
  it('counts work states over unfiled, unfolded rows and the rest by bucket', () => {
    const rows: TallyRow[] = [
      row({bucket: 'questions', live: true, state: 'needs_input'}),
      row({bucket: 'questions', pinned: true, state: 'working'}),
      row({bucket: 'pinned', pinned: true, state: 'done'}),
      row({bucket: 'new', state: 'idle'}),
      row({bucket: 'needs_input', state: 'needs_input'}),
      row({bucket: 'done', state: 'done'}),
      row({bucket: 'working', live: true, quiet: true, state: 'working'}),
      row({bucket: 'working', live: true, state: 'working'}),
      row({bucket: 'dormant', state: 'dormant'}),
      row({bucket: 'idle', state: 'idle'}),
      row({bucket: 'stashed', live: true, state: 'working'}),
      row({bucket: 'hidden', state: 'dormant'}),
      row({bucket: 'dismissed', state: 'done'}),
      row({bucket: 'snoozed', pinned: true, state: 'dormant'}),
      row({bucket: 'killed', state: 'idle'}),
      row({bucket: 'folded', live: true, pinned: true, state: 'working'}),
    ]

    const counts = tally(rows)

    expect(counts).toEqual({
      dismissed: 1,
      dormant: 1,
      done: 2,
      folded: 1,
      idle: 2,
      killed: 1,
      live: 4,
      needs_input: 2,
      new: 1,
      pinned: 3,
      questions: 2,
      quiet: 1,
      snoozed: 1,
      stashed: 2,
      working: 3,
    })
  })

  it('counts nothing in an empty inbox', () => {
    expect(Object.values(tally([])).every((n) => n === 0)).toBe(true)
  })
})

describe('formatTally', () => {
  it('prints the tally line', () => {
    const counts = {
      dismissed: 203,
      dormant: 24,
      done: 37,
      folded: 29,
      idle: 3,
      killed: 1,
      live: 38,
      needs_input: 19,
      new: 0,
      pinned: 11,
      questions: 2,
      quiet: 0,
      snoozed: 0,
      stashed: 231,
      working: 4,
    }

    expect(formatTally(counts)).toBe(
      'needs input 19 · done 37 · working 4 · dormant 24 · idle 3   (pinned 11, live 38, stashed 231, dismissed 203, killed 1, folded 29)',
    )
  })
})
