/**
 * The sessions and files families (src/core/store/sessions.ts, contributions.ts, file-marks.ts,
 * ownership.ts) on a real store: a typed id finds its session by cast id or native id prefix,
 * any case, and nothing else; facts are written only when they change; a file's contributions
 * report the sessions they touched; the marks carry no parser state unless a tail needs it;
 * owners compare without case.
 */
import {describe, expect, it} from 'vitest'

import {castId} from '../../../src/core/model/ids.js'
import {agentStoreStats, spoolParseErrors, storeHealth} from '../../../src/core/store/doctor.js'
import {loadFileMarks, loadFileRow} from '../../../src/core/store/file-marks.js'
import {fileMark, sameMark} from '../../../src/core/store/files.js'
import {addOwner, ownersOf, removeOwner} from '../../../src/core/store/ownership.js'
import type {FileRow} from '../../../src/core/store/store.js'
import {NOW, settled, useStore} from './fixture.js'

const f = useStore()
const file = (path: string, over: Partial<FileRow> = {}): FileRow => ({
  agent: 'claude_code',
  dev: 1,
  ino: 2,
  kind: 'transcript',
  mtimeMs: NOW,
  offset: 100,
  holder: null,
  tailTried: null,
  fp: null,
  parseErrors: 0,
  path,
  readAt: NOW,
  size: 100,
  state: '{"turn":3}',
  ...over,
})

describe('finding a session by what a person types', () => {
  it('finds it by its cast id or native id, whole or a prefix, in any case', () => {
    const a = f.add('Ab12-native')
    const b = f.add('zz99-other')

    const find = (typed: string) => f.store.sessionIdCandidates(typed).map((c) => c.id)
    expect(find(a)).toEqual([a])
    expect(find(a.slice(0, 4))).toEqual([a])
    expect(find('Ab12')).toEqual([a])
    expect(find('ab12')).toEqual([a])
    expect(find('zz99-other')).toEqual([b])
    expect(find('nope')).toEqual([])
    expect(f.store.sessionIdCandidates('zz')).toEqual([{agent: 'claude_code', id: b, nativeId: 'zz99-other'}])
  })

  it('loads only the sessions asked for, and counts them all', () => {
    const a = f.add('a')
    f.add('b')
    f.add('c')

    expect(f.store.loadSessions([a]).map((r) => r.id)).toEqual([a])
    expect(f.store.countSessions()).toBe(3)
    expect(
      f.store
        .sessionIds()
        .map((s) => s.nativeId)
        .sort(),
    ).toEqual(['a', 'b', 'c'])
  })
})

describe('facts', () => {
  it('are written on first sight and again only when they change', () => {
    const ctx = {device: 'box', now: NOW, runner: 'me@example.com'}
    expect(f.store.upsertFacts('claude_code', 'a', settled(), null, ctx)).toEqual({changed: true, id: castId('claude_code', 'a')})
    expect(f.store.upsertFacts('claude_code', 'a', settled(), null, ctx).changed).toBe(false)
    expect(f.store.upsertFacts('claude_code', 'a', settled({title: 'Fix the lexer'}), null, ctx).changed).toBe(true)

    expect(f.store.loadFactsByNative('claude_code', 'a')?.title).toBe('Fix the lexer')
    expect(f.store.loadFactsByNative('codex', 'a')).toBeNull()
  })
})

describe('files and contributions', () => {
  it('report every session whose contributions changed, and the ones a vanished file spoke for', () => {
    f.store.saveFile(file('/t/one.jsonl'))

    expect(
      f.store.replaceContributions('/t/one.jsonl', 'claude_code', [
        {data: '{"n":1}', nativeId: 'a'},
        {data: '{"n":1}', nativeId: 'b'},
      ]),
    ).toEqual(['a', 'b'])
    expect(
      f.store.replaceContributions('/t/one.jsonl', 'claude_code', [
        {data: '{"n":1}', nativeId: 'a'},
        {data: '{"n":2}', nativeId: 'c'},
      ]),
    ).toEqual(['c', 'b'])
    expect(f.store.contributionsFor('claude_code', 'c')).toEqual([{data: '{"n":2}', path: '/t/one.jsonl'}])

    expect(
      f.store
        .deleteFile('/t/one.jsonl')
        .map((s) => s.nativeId)
        .sort(),
    ).toEqual(['a', 'c'])
    expect(f.store.contributionsFor('claude_code', 'a')).toEqual([])
    expect(f.store.countFiles()).toBe(0)
  })

  it("leave the parser's state out of the marks unless a last line without its newline needs it", () => {
    f.store.saveFile(file('/t/whole.jsonl'))
    f.store.saveFile(file('/t/tail.jsonl', {offset: 90, state: '{"tail":"half a line"}'}))
    f.store.saveFile(file('/t/held.jsonl', {agent: 'opencode', holder: 7}))

    const marks = loadFileMarks(f.store, ['opencode'])
    expect(marks.get('/t/whole.jsonl')).toMatchObject({held: false, offset: 100, state: null, stateLoaded: false})
    expect(marks.get('/t/tail.jsonl')).toMatchObject({state: '{"tail":"half a line"}', stateLoaded: true})
    expect(marks.get('/t/held.jsonl')).toMatchObject({held: true, state: null})
    expect(loadFileMarks(f.store).get('/t/held.jsonl')?.held).toBe(false)
    expect(loadFileRow(f.store, '/t/whole.jsonl')).toEqual(file('/t/whole.jsonl'))
    expect(loadFileRow(f.store, '/t/none.jsonl')).toBeUndefined()
  })
})

describe('file marks for the last check before a commit', () => {
  it('change with any read of the file, so an overtaken read is seen', () => {
    f.store.saveFile(file('/t/one.jsonl'))
    const mine = fileMark(f.store, '/t/one.jsonl')

    expect(sameMark(mine, fileMark(f.store, '/t/one.jsonl'))).toBe(true)
    f.store.saveFile(file('/t/one.jsonl', {offset: 120, size: 120}))
    expect(sameMark(mine, fileMark(f.store, '/t/one.jsonl'))).toBe(false)
    expect(fileMark(f.store, '/t/none.jsonl')).toBeNull()
    expect(sameMark(null, undefined)).toBe(true)
    expect(sameMark(mine, null)).toBe(false)
  })
})

describe('what cast doctor reads of the store', () => {
  it('counts per agent the files read, their bad lines, the claims by kind, and the hook and screen sources', () => {
    f.add('a')
    f.add('b')
    f.store.saveFile(file('/t/a.jsonl', {parseErrors: 2}))
    f.store.replaceContributions('/t/a.jsonl', 'claude_code', [{data: '{"processClaim":{"source":{"kind":"registry"}}}', nativeId: 'a'}])
    f.store.upsertContribution('hooks://claude_code/a', 'claude_code', 'hook', 'a', '{}', NOW)
    f.store.upsertContribution('screen://tmux/%1', 'claude_code', 'screen', 'b', '{}', NOW)
    f.store.saveFile(file('hooks://spool', {kind: 'hook', parseErrors: 1}))
    f.store.addParseErrors('hooks://spool', 2)

    expect(agentStoreStats(f.store).get('claude_code')).toEqual({
      agent: 'claude_code',
      claims: {registry: 1},
      files: 1,
      hookSessions: 1,
      parseErrors: 2,
      screenSessions: 1,
      sessions: 2,
    })
    expect(spoolParseErrors(f.store)).toBe(3)
    expect(storeHealth(f.store).check).toBe('ok')
  })
})

describe('owners', () => {
  it('are a set compared without case, in the order they were added', () => {
    const a = f.add('a')

    expect(addOwner(f.store, a, 'Ana@example.com', 'me', NOW)).toBe(true)
    expect(addOwner(f.store, a, ' ana@EXAMPLE.com ', 'me', NOW + 1)).toBe(false)
    expect(addOwner(f.store, a, 'bo@example.com', 'me', NOW + 2)).toBe(true)
    expect(ownersOf(f.store, a).map((o) => o.who)).toEqual(['Ana@example.com', 'bo@example.com'])

    expect(removeOwner(f.store, a, 'ANA@example.com')).toBe(true)
    expect(removeOwner(f.store, a, 'ana@example.com')).toBe(false)
    expect(ownersOf(f.store, a)).toEqual([{addedAt: NOW + 2, addedBy: 'me', who: 'bo@example.com'}])
  })
})
