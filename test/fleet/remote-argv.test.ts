import {execFileSync} from 'node:child_process'
import {mkdtempSync, readdirSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {remoteCastCommand, shQuote} from '../../src/lib/fleet/remote-argv.js'

// The remote side of ssh is `sh -c LINE`; run the same line through a real sh
// and check every hostile argument arrives as one word and nothing runs.
describe('remote argv quoting', () => {
  it('passes ; $(...) newlines quotes and leading dashes as data', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cast-argv-'))
    const hostile = [
      `; touch ${dir}/semi`,
      `$(touch ${dir}/subst)`,
      '`touch ' + dir + '/tick`',
      'line1\nline2; touch ' + dir + '/nl',
      '--help',
      '-rf',
      'it\'s "quoted" \\ back',
      '',
    ]
    const line = ['printf', '%s\\0', ...hostile].map(shQuote).join(' ')
    const out = execFileSync('sh', ['-c', line], {encoding: 'utf8'})
    expect(out.split('\0').slice(0, -1)).toEqual(hostile)
    expect(readdirSync(dir)).toEqual([])
  })

  it('builds cast <verb> --json -- args and refuses a verb that is not a word', () => {
    expect(remoteCastCommand('send', ['s1', 'a;b'])).toBe(`'cast' 'send' '--json' '--' 's1' 'a;b'`)
    expect(() => remoteCastCommand('send;rm', [])).toThrow(/not a cast verb/)
    expect(() => shQuote('a\0b')).toThrow(/NUL/)
  })
})
