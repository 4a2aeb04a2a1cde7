import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'

const MODEL_DIR = fileURLToPath(new URL('../../../src/core/model/', import.meta.url))

/** What the pure core may not touch: I/O, native modules, the process, the clock. */
const FORBIDDEN: readonly (readonly [string, RegExp])[] = [
  ['a node: builtin', /\bfrom\s+['"]node:|\bimport\s*\(\s*['"]node:|\brequire\s*\(\s*['"]node:/],
  ['fs', /\bfrom\s+['"](?:fs|fs\/promises)['"]|\bimport\s*\(\s*['"]fs|\brequire\s*\(\s*['"]fs/],
  ['better-sqlite3', /['"]better-sqlite3['"]/],
  ['chokidar', /['"]chokidar['"]/],
  ['execa', /['"]execa['"]/],
  ['process.', /(?<![\w.$])process\s*\./],
  ['Date.now', /\bDate\s*\.\s*now\b/],
  ['new Date() without an argument', /\bnew\s+Date\s*(?:\(\s*\)|(?![\s(]))/],
]

/** Drop comments so prose like "the process." in a doc comment does not trip the guard. */
function stripComments(source: string): string {
  return source.replaceAll(/\/\*[\s\S]*?\*\//g, '').replaceAll(/(^|[^:'"`])\/\/.*$/gm, '$1')
}

function violations(source: string): string[] {
  const code = stripComments(source)
  return FORBIDDEN.filter(([, pattern]) => pattern.test(code)).map(([name]) => name)
}

describe('src/core/model is pure', () => {
  const files = readdirSync(MODEL_DIR, {recursive: true, withFileTypes: false})
    .map(String)
    .filter((name) => name.endsWith('.ts'))

  it('has files to check', () => {
    expect(files).toContain('work-state.ts')
  })

  it.each(files)('%s imports nothing impure and reads no clock', (name) => {
    expect(violations(readFileSync(join(MODEL_DIR, name), 'utf8'))).toEqual([])
  })

  it.each`
    snippet                                    | found
    ${"import {readFileSync} from 'node:fs'"}  | ${['a node: builtin']}
    ${"import fs from 'fs'"}                   | ${['fs']}
    ${"const fs = await import('fs')"}         | ${['fs']}
    ${"import Database from 'better-sqlite3'"} | ${['better-sqlite3']}
    ${"import {watch} from 'chokidar'"}        | ${['chokidar']}
    ${"import {execa} from 'execa'"}           | ${['execa']}
    ${'const home = process.env.HOME'}         | ${['process.']}
    ${'const t = Date.now()'}                  | ${['Date.now']}
    ${'const d = new Date()'}                  | ${['new Date() without an argument']}
    ${'const d = new Date'}                    | ${['new Date() without an argument']}
    ${'const d = new Date(now)'}               | ${[]}
    ${'const alive = facts.process.alive'}     | ${[]}
    ${'// the process. Date.now() new Date()'} | ${[]}
  `('the guard catches: $snippet', ({found, snippet}) => {
    expect(violations(snippet)).toEqual(found)
  })
})
