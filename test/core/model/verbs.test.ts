/**
 * The verb catalog (src/core/model/verbs.ts): one key per verb, the seed's order, and command
 * lines that cannot be turned into flags by what a person types.
 */
import {describe, expect, it} from 'vitest'

import {verb, VERBS, verbForKey} from '../../../src/core/model/verbs.js'
import {HELP, KEY_BAR} from '../../../src/lib/views/inbox/view.js'

describe('the verb catalog', () => {
  it('gives each verb one key and keeps the seed order (answer, then lightest to heaviest park, then filing)', () => {
    expect(new Set(VERBS.map((v) => v.key)).size).toBe(VERBS.length)
    const names = VERBS.map((v) => v.name)
    for (const [a, b] of [
      ['defer', 'dormant'],
      ['dormant', 'stash'],
      ['stash', 'stash-hide'],
      ['stash-hide', 'kill'],
    ])
      expect(names.indexOf(a as never)).toBeLessThan(names.indexOf(b as never))
    expect(verbForKey('x')?.name).toBe('stash')
    expect(verb('kill').takes).toBe('confirm')
  })

  it('puts typed text after "--" and a typed time where no flag can hide in it', () => {
    expect(verb('reply').argv('abc', '--hide me')).toEqual(['send', 'abc', '--', '--hide me'])
    expect(verb('reply').argv('abc', 'hi', 'needs_input:settled')).toEqual(['send', 'abc', '--if', 'needs_input:settled', '--', 'hi'])
    expect(verb('rename').argv('abc', '-x')).toEqual(['rename', 'abc', '--', '-x'])
    expect(verb('snooze').argv('abc', '2h')).toEqual(['snooze', 'abc', '--for', '2h'])
    expect(verb('snooze').argv('abc', 'tomorrow 9am')).toEqual(['snooze', 'abc', '--until', 'tomorrow 9am'])
  })

  it("renders cast inbox's key bar and help page: every verb on the help page with its key", () => {
    for (const v of VERBS) expect(HELP.some((l) => l.includes(v.label) && l.trimStart().startsWith(v.key))).toBe(true)
    expect(KEY_BAR).toContain('x stash')
  })
})
