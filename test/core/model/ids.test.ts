import {createHash} from 'node:crypto'
import {describe, expect, it} from 'vitest'

import {base32, castId, editDistance, resolvePrefix, sha256, shortId} from '../../../src/core/model/ids.js'

/** The reference: the same id computed with node:crypto and Node's own base32-free path. */
function referenceId(agent: string, nativeId: string): string {
  return base32Reference(createHash('sha256').update(`${agent}:${nativeId}`, 'utf8').digest()).slice(0, 26)
}

/** RFC 4648 base32 written the slow, obvious way (bits as a string). */
function base32Reference(bytes: Uint8Array): string {
  const bits = [...bytes].map((b) => b.toString(2).padStart(8, '0')).join('')
  let out = ''
  for (let i = 0; i < bits.length; i += 5)
    out += 'abcdefghijklmnopqrstuvwxyz234567'[Number.parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)]
  return out
}

describe('sha256', () => {
  it('matches node:crypto for every length from 0 to 300 bytes (padding boundaries included)', () => {
    for (let length = 0; length <= 300; length++) {
      const bytes = Uint8Array.from({length}, (_, i) => (i * 31 + length) & 0xff)

      expect(Buffer.from(sha256(bytes)).toString('hex')).toBe(createHash('sha256').update(bytes).digest('hex'))
    }
  })

  it('matches the FIPS 180-4 "abc" vector', () => {
    expect(Buffer.from(sha256(new TextEncoder().encode('abc'))).toString('hex')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    )
  })
})

describe('base32', () => {
  it.each`
    input       | encoded
    ${''}       | ${''}
    ${'f'}      | ${'my'}
    ${'fo'}     | ${'mzxq'}
    ${'foo'}    | ${'mzxw6'}
    ${'foob'}   | ${'mzxw6yq'}
    ${'fooba'}  | ${'mzxw6ytb'}
    ${'foobar'} | ${'mzxw6ytboi'}
  `('RFC 4648 vector "$input" -> "$encoded" (lowercase, no padding)', ({encoded, input}) => {
    expect(base32(new TextEncoder().encode(input))).toBe(encoded)
  })
})

describe('castId', () => {
  it.each`
    agent            | nativeId
    ${'claude_code'} | ${'c172c2e6-aa5f-4a18-9e1c-a04d200f3239'}
    ${'codex'}       | ${'019a3b7e-7f61-7c33-a2f4-5b2c9e0d1f11'}
    ${'pi'}          | ${''}
    ${'opencode'}    | ${'ses_ünïcødé-✓'}
    ${'gemini'}      | ${'x'.repeat(200)}
  `('$agent:$nativeId matches node:crypto', ({agent, nativeId}) => {
    const id = castId(agent, nativeId)

    expect(id).toBe(referenceId(agent, nativeId))
    expect(id).toMatch(/^[a-z2-7]{26}$/)
  })

  it('is stable and depends on the agent', () => {
    expect(castId('codex', 'abc')).toBe(castId('codex', 'abc'))
    expect(castId('codex', 'abc')).not.toBe(castId('pi', 'abc'))
  })

  it('shortId is the first 7 characters', () => {
    const id = castId('claude_code', 'c172c2e6-aa5f-4a18-9e1c-a04d200f3239')

    expect(shortId(id)).toBe(id.slice(0, 7))
    expect(shortId(id)).toHaveLength(7)
  })
})

describe('resolvePrefix', () => {
  const candidates = [
    {id: 'jx7dyk3aaaaaaaaaaaaaaaaaaa', nativeId: 'c172c2e6-aa5f-4a18-9e1c-a04d200f3239'},
    {id: 'jx7ebchbbbbbbbbbbbbbbbbbbb', nativeId: 'c172ffff-0000-4a18-9e1c-a04d200f3239'},
    {id: 'jx75ec0ccccccccccccccccccc', nativeId: 'abc'},
    {id: 'qqqqqqqddddddddddddddddddd', nativeId: 'jx7d-native'},
    {id: 'zzzzzzzeeeeeeeeeeeeeeeeeee', nativeId: 'ABC-Upper-1'},
  ]

  it.each`
    name                                              | prefix                                    | expected
    ${'full id'}                                      | ${'jx7dyk3aaaaaaaaaaaaaaaaaaa'}           | ${{id: 'jx7dyk3aaaaaaaaaaaaaaaaaaa', kind: 'one'}}
    ${'full id, upper case'}                          | ${'JX7DYK3AAAAAAAAAAAAAAAAAAA'}           | ${{id: 'jx7dyk3aaaaaaaaaaaaaaaaaaa', kind: 'one'}}
    ${'full native id'}                               | ${'c172c2e6-aa5f-4a18-9e1c-a04d200f3239'} | ${{id: 'jx7dyk3aaaaaaaaaaaaaaaaaaa', kind: 'one'}}
    ${'exact short native id beats the length floor'} | ${'abc'}                                  | ${{id: 'jx75ec0ccccccccccccccccccc', kind: 'one'}}
    ${'short id'}                                     | ${'jx7ebch'}                              | ${{id: 'jx7ebchbbbbbbbbbbbbbbbbbbb', kind: 'one'}}
    ${'4-char unique id prefix'}                      | ${'jx75'}                                 | ${{id: 'jx75ec0ccccccccccccccccccc', kind: 'one'}}
    ${'padded with spaces'}                           | ${'  jx75 '}                              | ${{id: 'jx75ec0ccccccccccccccccccc', kind: 'one'}}
    ${'unique native id prefix'}                      | ${'c172c2'}                               | ${{id: 'jx7dyk3aaaaaaaaaaaaaaaaaaa', kind: 'one'}}
    ${'native id prefix, other case'}                 | ${'abc-upper'}                            | ${{id: 'zzzzzzzeeeeeeeeeeeeeeeeeee', kind: 'one'}}
    ${'ambiguous native id prefix'}                   | ${'c172'}                                 | ${{kind: 'many', matches: ['jx7dyk3aaaaaaaaaaaaaaaaaaa', 'jx7ebchbbbbbbbbbbbbbbbbbbb']}}
    ${'ambiguous across id and native id'}            | ${'jx7d'}                                 | ${{kind: 'many', matches: ['jx7dyk3aaaaaaaaaaaaaaaaaaa', 'qqqqqqqddddddddddddddddddd']}}
    ${'ambiguous 3 ways'}                             | ${'jx7'}                                  | ${{kind: 'none', nearest: ['jx75ec0ccccccccccccccccccc', 'jx7dyk3aaaaaaaaaaaaaaaaaaa', 'jx7ebchbbbbbbbbbbbbbbbbbbb', 'qqqqqqqddddddddddddddddddd']}}
    ${'3 chars never match, even when unique'}        | ${'zzz'}                                  | ${{kind: 'none', nearest: ['zzzzzzzeeeeeeeeeeeeeeeeeee']}}
    ${'a typo gets the nearest'}                      | ${'jx7ebcx'}                              | ${{kind: 'none', nearest: ['jx7ebchbbbbbbbbbbbbbbbbbbb', 'jx75ec0ccccccccccccccccccc', 'jx7dyk3aaaaaaaaaaaaaaaaaaa', 'qqqqqqqddddddddddddddddddd']}}
    ${'nothing like it'}                              | ${'9999'}                                 | ${{kind: 'none', nearest: []}}
    ${'empty'}                                        | ${''}                                     | ${{kind: 'none', nearest: []}}
  `('$name: "$prefix"', ({expected, prefix}) => {
    expect(resolvePrefix(prefix, candidates)).toEqual(expected)
  })

  it('reports two sessions sharing a native id as ambiguous', () => {
    const twins = [
      {id: 'aaaa1111111111111111111111', nativeId: 'same'},
      {id: 'bbbb2222222222222222222222', nativeId: 'same'},
    ]

    expect(resolvePrefix('same', twins)).toEqual({kind: 'many', matches: ['aaaa1111111111111111111111', 'bbbb2222222222222222222222']})
  })

  it('offers at most 5 nearest', () => {
    const many = Array.from({length: 9}, (_, i) => ({id: `abcd${i}xxxxxxxxxxxxxxxxxxxxx`.slice(0, 26), nativeId: `n${i}`}))

    const result = resolvePrefix('abce', many)

    expect(result.kind === 'none' && result.nearest.length).toBe(5)
  })

  it.each`
    a            | b            | distance
    ${''}        | ${''}        | ${0}
    ${'abc'}     | ${''}        | ${3}
    ${'kitten'}  | ${'sitting'} | ${3}
    ${'jx7ebcx'} | ${'jx7ebch'} | ${1}
  `('editDistance("$a", "$b") = $distance', ({a, b, distance}) => {
    expect(editDistance(a, b)).toBe(distance)
  })
})
