import {describe, expect, it} from 'vitest'

import {agentDir, matchPiFile, piRoots, sessionIdOf} from '../../../src/adapters/pi/index.js'

const home = '/home/u'

describe('pi paths', () => {
  it('PI_CODING_AGENT_DIR, else ~/.pi/agent; sessions/ is the root', () => {
    expect(piRoots({env: {}, home})).toEqual(['/home/u/.pi/agent/sessions'])
    expect(piRoots({env: {PI_CODING_AGENT_DIR: '/opt/pi/'}, home})).toEqual(['/opt/pi/sessions'])
    expect(agentDir({env: {PI_CODING_AGENT_DIR: '~/alt'}, home})).toBe('/home/u/alt')
    expect(agentDir({env: {PI_CODING_AGENT_DIR: '  '}, home})).toBe('/home/u/.pi/agent')
  })

  it('matches session files in a --cwd-- folder (or flat), keyed by the uuid in the name', () => {
    const ctx = {env: {}, home}
    const id = '019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b'

    expect(matchPiFile(`/home/u/.pi/agent/sessions/--home-u-src-app--/2026-08-01T10-00-00-000Z_${id}.jsonl`, ctx)).toEqual({
      kind: 'jsonl',
      nativeId: id,
      role: 'session',
    })
    expect(matchPiFile(`/home/u/.pi/agent/sessions/2026-08-01T10-00-00-000Z_${id}.jsonl`, ctx)).toMatchObject({nativeId: id})
    expect(matchPiFile('/home/u/.pi/agent/sessions/--x--/custom-name.jsonl', ctx)).toMatchObject({nativeId: 'custom-name'})
    expect(matchPiFile('/home/u/.pi/agent/sessions/--x--/notes.txt', ctx)).toBe(null)
    expect(matchPiFile('/home/u/.pi/agent/sessions/--x--/deeper/a.jsonl', ctx)).toBe(null)
    expect(matchPiFile('/home/u/.pi/agent/settings.json', ctx)).toBe(null)
    expect(matchPiFile(`/elsewhere/${id}.jsonl`, ctx)).toBe(null)
  })

  it('a parentSession path (any OS) names a session id', () => {
    expect(sessionIdOf('/Users/a/.pi/agent/sessions/--x--/2026-01-01T00-00-00-000Z_A2000000-0000-4000-8000-000000000001.jsonl')).toBe(
      'a2000000-0000-4000-8000-000000000001',
    )
    expect(sessionIdOf('C:\\Users\\a\\.pi\\agent\\sessions\\--C--x--\\t_a2000000-0000-4000-8000-000000000001.jsonl')).toBe(
      'a2000000-0000-4000-8000-000000000001',
    )
    expect(sessionIdOf('not-a-path')).toBe(null)
  })
})
