import {describe, expect, it} from 'vitest'

import {pgSafe, safeString} from '../../src/core/store/team/safe-text.js'

describe('text PostgreSQL can store', () => {
  it('replaces NUL and lone surrogates, keeps pairs and everything else', () => {
    expect(safeString('a\u0000b')).toBe('a\uFFFDb')
    expect(safeString('x\uD800')).toBe('x\uFFFD')
    expect(safeString('\uDC00y')).toBe('\uFFFDy')
    expect(safeString('\uDC00\uD800')).toBe('\uFFFD\uFFFD')
    expect(safeString('ok 😀 é \u001b[31m')).toBe('ok 😀 é \u001b[31m')
    expect(safeString('😀'.slice(0, 1) + '😀')).toBe('\uFFFD😀')
  })

  it('reaches every string and key of a summary, and the result is JSON jsonb accepts', () => {
    const v = {n: 1, t: true, z: null, title: 'T\u0000', list: ['\uD83D', {deep: 'q\uDE00'}], ['k\u0000']: 'v'}
    const s = pgSafe(v)
    const text = JSON.stringify(s)
    expect(text).not.toMatch(/\\u0000|\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2}/i)
    expect(s).toEqual({n: 1, t: true, z: null, title: 'T\uFFFD', list: ['\uFFFD', {deep: 'q\uFFFD'}], ['k\uFFFD']: 'v'})
    expect(v.title).toBe('T\u0000') // the input is not changed
  })
})
