/**
 * Commands call the store one way (docs/architecture.md, "Calling the store"): through the `Store`
 * class (src/core/store/store.ts) and the family loaders (src/core/store/families.ts), never a
 * family module by its path.
 */
import fs from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'

const SRC = path.resolve(import.meta.dirname, '../../src')
const STORE = path.join(SRC, 'core', 'store')
const FACADES: ReadonlySet<string> = new Set(['store.ts', 'families.ts'].map((f) => path.join(STORE, f)))

const files = (dir: string): string[] =>
  fs
    .readdirSync(dir, {withFileTypes: true})
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []))

/** Every relative module a file names: static imports, `import type`, re-exports, `import()` and `import('…').T` types. */
const imports = (file: string): string[] =>
  [...fs.readFileSync(file, 'utf8').matchAll(/(?:\bfrom|\bimport\s*\()\s*['"]([^'"]+)['"]/g)]
    .map((m) => m[1]!)
    .filter((i) => i.startsWith('.'))

/** `file -> target` for each import of a module under src/core/store other than the facades. */
function familyImports(dir: string): string[] {
  return files(dir).flatMap((f) =>
    imports(f)
      .map((i) => path.resolve(path.dirname(f), i).replace(/\.js$/, '.ts'))
      .filter((target) => target.startsWith(STORE + path.sep) && !FACADES.has(target))
      .map((target) => `${path.relative(SRC, f)} -> ${path.relative(SRC, target)}`),
  )
}

describe('calling the store', () => {
  it('commands import only the store facades from src/core/store', () => {
    expect(familyImports(path.join(SRC, 'commands'))).toEqual([])
  })

  it('the scan sees family imports of every form', () => {
    // A scan that finds nothing would pass the rule above. src/lib and src/team import families
    // directly, as values, as types and with import(): the same scan must find each form there.
    const found = familyImports(path.join(SRC, 'lib'))
    const lines = new Set(found.map((c) => c.split(' -> ')[0]!))
    const forms = [...lines].flatMap((file) => {
      const source = fs.readFileSync(path.join(SRC, file), 'utf8')
      return [
        /^import \{[^}]*\} from '[^']*core\/store\/(?!store|families)/m.test(source) ? 'value' : [],
        /^import type \{[^}]*\} from '[^']*core\/store\/(?!store|families)/m.test(source) ? 'type' : [],
        /import\('[^']*core\/store\/(?!store|families)/.test(source) ? 'dynamic' : [],
      ].flat()
    })
    expect(new Set(forms)).toEqual(new Set(['value', 'type', 'dynamic']))
    expect(found.some((c) => c.includes('-> core/store/team/'))).toBe(true)
  })

  it('the facades load no family when imported', () => {
    // families.ts re-exports types (erased) and rows.ts (the column reader store.ts loads too); a
    // value import of a family there would load it for every command that names the facade.
    const source = fs.readFileSync(path.join(STORE, 'families.ts'), 'utf8')
    const staticValues = [...source.matchAll(/^(?:import|export) (?!type\b)[^;]*?from '([^']+)'/gm)].map((m) => m[1])
    expect(staticValues).toEqual(['./rows.js'])
  })
})
