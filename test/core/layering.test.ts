import fs from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'

const SRC = path.resolve(import.meta.dirname, '../../src')
const files = (dir: string): string[] =>
  fs.readdirSync(dir, {withFileTypes: true}).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []))
const imports = (file: string): string[] => [...fs.readFileSync(file, 'utf8').matchAll(/(?:from|import\()\s*'([^']+)'/g)].map((m) => m[1]!)

describe('layering (DESIGN §2)', () => {
  it('commands never import an adapter directly', () => {
    const bad = files(path.join(SRC, 'commands')).flatMap((f) => imports(f).filter((i) => i.includes('/adapters/')).map((i) => `${path.relative(SRC, f)} -> ${i}`))

    expect(bad).toEqual([])
  })

  it('adapters never import the store', () => {
    const bad = files(path.join(SRC, 'adapters')).flatMap((f) => imports(f).filter((i) => i.includes('/store/') || i === 'better-sqlite3').map((i) => `${path.relative(SRC, f)} -> ${i}`))

    expect(bad).toEqual([])
  })

  it('SQL lives only in src/core/store', () => {
    const sql = /\b(SELECT\s+[\w*(]|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+TABLE)\b/
    const bad = files(SRC)
      .filter((f) => !f.startsWith(path.join(SRC, 'core', 'store')) && !f.startsWith(path.join(SRC, 'adapters')))
      .filter((f) => sql.test(fs.readFileSync(f, 'utf8')))
      .map((f) => path.relative(SRC, f))

    expect(bad).toEqual([])
  })
})
