/** The file handling of `cast hooks`: JSON read and written back in the file's own style, backups, atomic writes. */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {HooksFileError} from '../../../src/lib/agents/hooks/document.js'
import {backupFile, readJsonFile, replaceFile, serializeJson, tildePath, writeAtomic} from '../../../src/lib/agents/hooks/files.js'

const dirs: string[] = []
const tmp = (): string => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-hooks-files-'))
  dirs.push(d)
  return d
}

afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, {force: true, recursive: true})
})

describe('serializeJson', () => {
  it.each([
    {name: 'new file: two spaces, final newline', original: '', want: '{\n  "a": [\n    1\n  ]\n}\n'},
    {name: 'four spaces kept', original: '{\n    "x": 1\n}\n', want: '{\n    "a": [\n        1\n    ]\n}\n'},
    {name: 'tabs kept', original: '{\n\t"x": 1\n}\n', want: '{\n\t"a": [\n\t\t1\n\t]\n}\n'},
    {name: 'no final newline kept', original: '{"x": 1}', want: '{\n  "a": [\n    1\n  ]\n}'},
    {name: 'CRLF kept', original: '{\r\n  "x": 1\r\n}\r\n', want: '{\r\n  "a": [\r\n    1\r\n  ]\r\n}\r\n'},
  ])('$name', ({original, want}) => {
    expect(serializeJson({a: [1]}, original)).toBe(want)
  })
})

describe('readJsonFile', () => {
  it('missing, blank, with a BOM, through a symlink', () => {
    const d = tmp()
    expect(readJsonFile(path.join(d, 'none.json'))).toEqual({doc: {}, exists: false, real: path.join(d, 'none.json'), text: ''})
    fs.writeFileSync(path.join(d, 'blank.json'), ' \n')
    expect(readJsonFile(path.join(d, 'blank.json')).doc).toEqual({})
    fs.writeFileSync(path.join(d, 'bom.json'), '\uFEFF{"a": 1}')
    expect(readJsonFile(path.join(d, 'bom.json')).doc).toEqual({a: 1})
    fs.symlinkSync(path.join(d, 'bom.json'), path.join(d, 'link.json'))
    expect(readJsonFile(path.join(d, 'link.json')).real).toBe(fs.realpathSync(path.join(d, 'bom.json')))
  })

  it.each([
    {jsonc: false, text: '{\n  "a": 1,\n}', want: /is not valid JSON \(.*line 3, column 1\)\. Nothing was changed\.$/},
    {jsonc: true, text: '{\n // mine\n}', want: /comments are not supported by cast's installer/},
    {jsonc: false, text: '[1]', want: /does not hold a JSON object/},
  ])('refuses $text', ({jsonc, text, want}) => {
    const file = path.join(tmp(), 's.json')
    fs.writeFileSync(file, text)

    expect(() => readJsonFile(file, jsonc)).toThrow(HooksFileError)
    expect(() => readJsonFile(file, jsonc)).toThrow(want)
  })
})

describe('backups and atomic writes', () => {
  it('a backup never overwrites another and is 0600 whatever the original (it may hold tokens)', () => {
    const file = path.join(tmp(), 'settings.json')
    fs.writeFileSync(file, '{"a": 1}', {mode: 0o644})
    fs.chmodSync(file, 0o644)
    const now = Date.UTC(2026, 11, 1, 12, 0, 0)
    const first = backupFile(file, now)
    const second = backupFile(file, now)

    expect(path.basename(first)).toBe('settings.json.cast-backup-20261201T120000Z')
    expect(path.basename(second)).toBe('settings.json.cast-backup-20261201T120000Z-1')
    expect(fs.statSync(first).mode & 0o777).toBe(0o600)
    expect(fs.statSync(second).mode & 0o777).toBe(0o600)
    expect(fs.statSync(file).mode & 0o777).toBe(0o644)
    expect(fs.readFileSync(first, 'utf8')).toBe('{"a": 1}')
  })

  it('writeAtomic: a new file is private in a private folder, an existing one keeps its mode, no temporary file is left', () => {
    const d = tmp()
    const file = path.join(d, 'new', 'hooks.json')
    writeAtomic(file, 'x')
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700)
    fs.chmodSync(file, 0o644)
    writeAtomic(file, 'y')

    expect(fs.readFileSync(file, 'utf8')).toBe('y')
    expect(fs.statSync(file).mode & 0o777).toBe(0o644)
    expect(fs.readdirSync(path.dirname(file))).toEqual(['hooks.json'])
  })

  it('replaceFile backs up only a file with something in it', () => {
    const d = tmp()
    const file = path.join(d, 'a.json')
    expect(replaceFile({exists: false, real: file, text: ''}, '{}\n', 0)).toBeNull()
    const backup = replaceFile({exists: true, real: file, text: '{}\n'}, '{"b": 1}\n', 0)

    expect(backup).not.toBeNull()
    expect(fs.readFileSync(backup!, 'utf8')).toBe('{}\n')
    expect(fs.readFileSync(file, 'utf8')).toBe('{"b": 1}\n')
  })
})

it('tildePath shortens paths under HOME only', () => {
  expect(tildePath('/home/me/.claude/settings.json', {HOME: '/home/me'})).toBe('~/.claude/settings.json')
  expect(tildePath('/home/meme/x', {HOME: '/home/me'})).toBe('/home/meme/x')
})
