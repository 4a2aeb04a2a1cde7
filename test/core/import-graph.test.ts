/**
 * The import graph of src/ has no cycles: static imports and re-exports, type-only ones included
 * (a type cycle still ties two modules into one unit a reader must learn together), and the
 * dynamic `import()` calls commands make inside run(). Parsed with the TypeScript compiler, so an
 * import split over several lines, `import type`, `export … from` and `import('…')` all count.
 */
import fs from 'node:fs'
import path from 'node:path'
import ts from 'typescript'
import {describe, expect, it} from 'vitest'

const SRC = path.resolve(import.meta.dirname, '../../src')

const files = (dir: string): string[] =>
  fs
    .readdirSync(dir, {withFileTypes: true})
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [path.join(dir, e.name)] : []))

interface Edge {
  readonly to: string
  readonly dynamic: boolean
}

/** The module specifiers a source text imports: static (import, export … from) and dynamic. */
export function specifiers(text: string, name = 'x.ts'): {spec: string; dynamic: boolean}[] {
  const sf = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true)
  const out: {spec: string; dynamic: boolean}[] = []
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      out.push({spec: node.moduleSpecifier.text, dynamic: false})
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      out.push({spec: node.arguments[0].text, dynamic: true})
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      out.push({spec: node.argument.literal.text, dynamic: false})
    }

    ts.forEachChild(node, visit)
  }

  visit(sf)
  return out
}

/** `./x.js` from `from` → the source file it names, or null (a package, or a file outside src). */
function resolve(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null
  const base = path.resolve(path.dirname(from), spec)
  const stem = base.replace(/\.js$/, '')
  for (const c of [`${stem}.ts`, `${stem}.tsx`, path.join(base, 'index.ts')]) if (fs.existsSync(c)) return c
  return null
}

function graph(): Map<string, Edge[]> {
  const g = new Map<string, Edge[]>()
  for (const f of files(SRC)) {
    const edges: Edge[] = []
    for (const {spec, dynamic} of specifiers(fs.readFileSync(f, 'utf8'), f)) {
      const to = resolve(f, spec)
      if (to) edges.push({to, dynamic})
    }

    g.set(f, edges)
  }

  return g
}

/** Strongly connected components of more than one file (or a file importing itself), as paths under src/. */
export function cycles(g: ReadonlyMap<string, readonly Edge[]>, withDynamic: boolean): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const on = new Set<string>()
  const out: string[][] = []
  let next = 0
  const connect = (v: string): void => {
    index.set(v, next)
    low.set(v, next++)
    stack.push(v)
    on.add(v)
    for (const e of g.get(v) ?? []) {
      if (e.dynamic && !withDynamic) continue
      if (!index.has(e.to)) {
        connect(e.to)
        low.set(v, Math.min(low.get(v)!, low.get(e.to)!))
      } else if (on.has(e.to)) low.set(v, Math.min(low.get(v)!, index.get(e.to)!))
    }

    if (low.get(v) === index.get(v)) {
      const part: string[] = []
      let w: string
      do {
        w = stack.pop()!
        on.delete(w)
        part.push(path.relative(SRC, w))
      } while (w !== v)
      const selfLoop = (g.get(v) ?? []).some((e) => e.to === v && (withDynamic || !e.dynamic))
      if (part.length > 1 || selfLoop) out.push(part.sort())
    }
  }

  for (const v of g.keys()) if (!index.has(v)) connect(v)
  return out
}

describe('the import graph of src/', () => {
  const g = graph()

  it('has no cycle through static imports, type-only ones included', () => {
    expect(cycles(g, false)).toEqual([])
  })

  it('has no cycle through dynamic import() either', () => {
    expect(cycles(g, true)).toEqual([])
  })

  it('sees every kind of import (a checker that reads nothing would pass)', () => {
    const found = specifiers(
      [
        "import fs from 'node:fs'",
        "import type {A} from './a.js'",
        'import {',
        '  b,',
        "} from './b.js'",
        "export {c} from './c.js'",
        "export type {D} from './d.js'",
        "type E = import('./e.js').E",
        "async function f() { await import('./f.js') }",
      ].join('\n'),
    )
    expect(found).toEqual([
      {spec: 'node:fs', dynamic: false},
      {spec: './a.js', dynamic: false},
      {spec: './b.js', dynamic: false},
      {spec: './c.js', dynamic: false},
      {spec: './d.js', dynamic: false},
      {spec: './e.js', dynamic: false},
      {spec: './f.js', dynamic: true},
    ])
    // And the real graph has edges of both kinds.
    const all = [...g.values()].flat()
    expect(all.filter((e) => e.dynamic).length).toBeGreaterThan(50)
    expect(all.filter((e) => !e.dynamic).length).toBeGreaterThan(500)
  })

  it('finds a cycle when there is one', () => {
    const a = path.join(SRC, 'a.ts')
    const b = path.join(SRC, 'b.ts')
    const c = path.join(SRC, 'c.ts')
    const planted = new Map<string, Edge[]>([
      [a, [{to: b, dynamic: false}]],
      [b, [{to: c, dynamic: true}]],
      [c, [{to: a, dynamic: false}]],
    ])
    expect(cycles(planted, false)).toEqual([])
    expect(cycles(planted, true)).toEqual([['a.ts', 'b.ts', 'c.ts']])
  })
})
