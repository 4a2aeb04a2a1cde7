import {describe, expect, it} from 'vitest'

import {scriptsOf, shownName, unsafeName} from '../../../src/core/model/safe-name.js'

describe('safe names (identities and device names)', () => {
  const table: [string, 'device' | 'identity', RegExp | null][] = [
    ['bob', 'device', null],
    ['host-a:ana', 'device', null],
    ['ana@example.com', 'identity', null],
    ["o'brien@example.com", 'identity', null],
    ['jürgen@example.de', 'identity', null],
    ['ΑΘΗΝΑ', 'device', null],
    ['москва-1', 'device', null],
    ['田中さん', 'identity', null],
    ['tanaka田中カタカナ', 'identity', null],
    ['김민수', 'identity', null],
    ['bo\u200bb', 'device', /U\+200B/],
    ['bob\u202e', 'device', /U\+202E/],
    ['bo\u2066b\u2069', 'device', /U\+2066/],
    ['\ufeffbob', 'identity', /U\+FEFF/],
    ['bo\u00adb', 'identity', /U\+00AD/],
    ['bob\u0007', 'device', /U\+0007/],
    ['bob\u2028', 'device', /U\+2028/],
    ['bo b', 'device', /white space/],
    ['bob\u00a0', 'device', /white space|NFKC/],
    ['\u0430lice', 'identity', /mixes scripts \(Cyrillic and Latin/],
    ['p\u0430ypal', 'device', /mixes scripts/],
    ['ｂｏｂ', 'device', /NFKC/],
    ['ﬁle', 'device', /NFKC/],
    ['e\u0301', 'identity', /NFKC/],
    ['x'.repeat(129), 'device', /at most 128/],
    ['x'.repeat(200), 'identity', null],
    ['', 'identity', /empty/],
    ['ab\ud800', 'device', /U\+D800/],
    ['a\ue000', 'device', /U\+E000/],
  ]
  for (const [name, kind, want] of table) {
    it(`${JSON.stringify(name)} as ${kind}: ${want ? 'refused' : 'accepted'}`, () => {
      const why = unsafeName(name, kind)
      if (want === null) expect(why).toBeNull()
      else expect(why).toMatch(want)
    })
  }

  it('the reason never carries the raw invisible character', () => {
    const why = unsafeName('bo\u200bb', 'device')!
    expect(why).not.toMatch(/\u200b/)
  })

  it('scripts of a name ignore digits and punctuation', () => {
    expect(scriptsOf('host-1.ana@x')).toEqual(['Latin'])
    expect(scriptsOf('\u0430lice')).toEqual(['Cyrillic', 'Latin'])
  })

  it('an unsafe name is shown by its code points, a safe one as is', () => {
    expect(shownName('bob', 'device')).toBe('bob')
    expect(shownName('bo\u200bb', 'device')).toBe('[unsafe name: bo<U+200B>b]')
    expect(shownName('\u0430lice', 'device')).toBe('[unsafe name: <U+0430>lice]')
  })
})
