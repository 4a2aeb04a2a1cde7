/**
 * The import graph of src/ has no cycles: static imports and re-exports, type-only ones included
 * (a type cycle still ties two modules into one unit a reader must learn together), and the
 * dynamic `import()` calls commands make inside run(). Parsed with the TypeScript compiler, so an
 * import split over several lines, `import type`, `export … from` and `import('…')` all count.
 * The folders of src/lib are floors: no folder imports one that imports it back, however far round.
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

/**
 * The folders of src/lib (src/lib/base, src/lib/views, …) as one node each: an edge from a
 * folder to another when one of its files imports one of the other's. A file directly in
 * src/lib, or outside it, is not a node.
 */
export function folderGraph(g: ReadonlyMap<string, readonly Edge[]>): Map<string, Edge[]> {
  const LIB = path.join(SRC, 'lib')
  const folderOf = (f: string): string | null => {
    const rel = path.relative(LIB, f).split(path.sep)
    return rel.length > 1 && rel[0] !== '..' ? path.join(LIB, rel[0]!) : null
  }

  const out = new Map<string, Edge[]>()
  for (const [from, edges] of g) {
    const a = folderOf(from)
    if (a === null) continue
    const list = out.get(a) ?? []
    out.set(a, list)
    for (const e of edges) {
      const b = folderOf(e.to)
      if (b === null || b === a || list.some((x) => x.to === b && x.dynamic === e.dynamic)) continue
      list.push({dynamic: e.dynamic, to: b})
    }
  }

  return out
}

describe('the folders of src/lib are floors', () => {
  const folders = folderGraph(graph())

  it('no two folders import each other, directly or round a loop, dynamic import() included', () => {
    expect(cycles(folders, true)).toEqual([])
    expect(folders.size).toBeGreaterThan(8)
  })

  it('finds a ping-pong between two folders, and a loop through three (a planted one)', () => {
    const f = (p: string): string => path.join(SRC, 'lib', p)
    const pingPong = new Map<string, Edge[]>([
      [f('base/a.ts'), [{to: f('views/b.ts'), dynamic: true}]],
      [f('views/b.ts'), [{to: f('base/c.ts'), dynamic: false}]],
      [f('base/c.ts'), []],
    ])
    // No file cycle (a -> b -> c), but base and views import each other.
    expect(cycles(pingPong, true)).toEqual([])
    expect(cycles(folderGraph(pingPong), true)).toEqual([['lib/base', 'lib/views']])
    const loop = new Map<string, Edge[]>([
      [f('base/a.ts'), [{to: f('home/b.ts'), dynamic: false}]],
      [f('home/b.ts'), [{to: f('ingest/c.ts'), dynamic: false}]],
      [f('ingest/c.ts'), [{to: f('base/d.ts'), dynamic: false}]],
    ])
    expect(cycles(folderGraph(loop), false)).toEqual([['lib/base', 'lib/home', 'lib/ingest']])
  })
})

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
