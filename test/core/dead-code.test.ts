/**
 * Dead code goes (issue 12 point 8): every function, constant, class or type src/ exports is
 * used somewhere — in its own file, elsewhere in src/, by a test, a benchmark or a script. A
 * name written only where it is declared is code nobody runs: delete it (or stop exporting it).
 */
import fs from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '../..')

const files = (dir: string, ext: RegExp): string[] =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, {withFileTypes: true})
        .flatMap((e) =>
          e.isDirectory()
            ? e.name === 'node_modules' || e.name.startsWith('.')
              ? []
              : files(path.join(dir, e.name), ext)
            : ext.test(e.name)
              ? [path.join(dir, e.name)]
              : [],
        )
    : []

const EXPORTED = /^export (?:async )?(?:function\*?|const|let|class|interface|type|enum|abstract class) (\w+)/gm

/** How often each word is written across the sources, the tests, the benchmarks and the scripts. */
function wordCounts(paths: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const p of paths) for (const w of fs.readFileSync(p, 'utf8').match(/\w+/g) ?? []) counts.set(w, (counts.get(w) ?? 0) + 1)
  return counts
}

describe('dead code', () => {
  const src = files(path.join(ROOT, 'src'), /\.ts$/)
  const rest = [
    ...files(path.join(ROOT, 'test'), /\.[cm]?[jt]s$/),
    ...files(path.join(ROOT, 'bench'), /\.[cm]?js$/),
    ...files(path.join(ROOT, 'scripts'), /\.[cm]?js$|\.mjs$/),
    ...files(path.join(ROOT, 'bin'), /\.js$/),
  ]
  const counts = wordCounts([...src, ...rest])

  it('reads the exports it judges (a guard that found none would pass anything)', () => {
    const names = src.flatMap((f) => [...fs.readFileSync(f, 'utf8').matchAll(EXPORTED)].map((m) => m[1]!))
    expect(names.length).toBeGreaterThan(200)
    expect(names).toContain('classifyWorkState')
  })

  it('every name src/ exports is used beyond its own declaration', () => {
    const dead = src.flatMap((f) =>
      [...fs.readFileSync(f, 'utf8').matchAll(EXPORTED)]
        .map((m) => m[1]!)
        .filter((name) => (counts.get(name) ?? 0) <= 1)
        .map((name) => `${path.relative(ROOT, f)}: ${name}`),
    )
    expect(dead).toEqual([])
  })
})
