import {describe, expect, it} from 'vitest'

import {matchOpencodeFile, opencodeDataDir, opencodeRoots, skipOpencodeDir} from '../../../src/adapters/opencode/index.js'

const home = '/home/u'
const ctx = {env: {}, home}

describe('OpenCode paths', () => {
  it('XDG_DATA_HOME/opencode, else ~/.local/share/opencode (a relative XDG_DATA_HOME is ignored)', () => {
    expect(opencodeRoots(ctx)).toEqual(['/home/u/.local/share/opencode'])
    expect(opencodeDataDir({env: {XDG_DATA_HOME: '/data/'}, home})).toBe('/data/opencode')
    expect(opencodeDataDir({env: {XDG_DATA_HOME: 'rel/path'}, home})).toBe('/home/u/.local/share/opencode')
  })

  it('the database of every channel is a sqlite source; its -wal and -shm are not files to read', () => {
    const d = '/home/u/.local/share/opencode'

    expect(matchOpencodeFile(`${d}/opencode.db`, ctx)).toEqual({kind: 'sqlite', role: 'db'})
    expect(matchOpencodeFile(`${d}/opencode-beta.db`, ctx)).toEqual({kind: 'sqlite', role: 'db'})
    expect(matchOpencodeFile(`${d}/opencode.db-wal`, ctx)).toBe(null)
    expect(matchOpencodeFile(`${d}/opencode.db-shm`, ctx)).toBe(null)
    expect(matchOpencodeFile(`${d}/auth.json`, ctx)).toBe(null)
  })

  it('storage/ files: the session id from the session file name, a message by its folder', () => {
    const s = '/home/u/.local/share/opencode/storage'

    expect(matchOpencodeFile(`${s}/session/global/ses_abc.json`, ctx)).toEqual({kind: 'whole', nativeId: 'ses_abc', role: 'session'})
    expect(matchOpencodeFile(`${s}/message/ses_abc/msg_1.json`, ctx)).toEqual({kind: 'whole', nativeId: 'ses_abc', role: 'message'})
    expect(matchOpencodeFile(`${s}/part/msg_1/prt_1.json`, ctx)).toEqual({kind: 'whole', role: 'part'})
    expect(matchOpencodeFile(`${s}/todo/ses_abc.json`, ctx)).toBe(null)
    expect(matchOpencodeFile(`${s}/session/global/ses_abc.json.tmp`, ctx)).toBe(null)
  })

  it('only storage/{session,message,part} and log/ are walked', () => {
    const d = '/home/u/.local/share/opencode'

    expect(skipOpencodeDir(`${d}/snapshot`)).toBe(true)
    expect(skipOpencodeDir(`${d}/log`)).toBe(false)
    expect(skipOpencodeDir(`${d}/repos`)).toBe(true)
    expect(skipOpencodeDir(`${d}/storage`)).toBe(false)
    expect(skipOpencodeDir(`${d}/storage/todo`)).toBe(true)
    expect(skipOpencodeDir(`${d}/storage/part`)).toBe(false)
    expect(skipOpencodeDir(`${d}/storage/part/msg_1`)).toBe(false)
  })
})
