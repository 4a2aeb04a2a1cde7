import fs from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'

const SRC = path.resolve(import.meta.dirname, '../../src')
const files = (dir: string): string[] =>
  fs
    .readdirSync(dir, {withFileTypes: true})
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []))
const imports = (file: string): string[] => [...fs.readFileSync(file, 'utf8').matchAll(/(?:from|import\()\s*'([^']+)'/g)].map((m) => m[1]!)

/** The layer a file under src/ belongs to: its first folder (adapters, commands, core, lib, team). */
const layerOf = (file: string): string => path.relative(SRC, file).split(path.sep)[0]!

/**
 * Every relative import of a file in `from` that lands in the layer `to`, as `file -> target`
 * (paths under src/). Type-only imports count: a type cycle is still a cycle.
 */
function crossings(from: string, to: string): string[] {
  return files(path.join(SRC, from)).flatMap((f) =>
    imports(f)
      .filter((i) => i.startsWith('.'))
      .map((i) => path.resolve(path.dirname(f), i))
      .filter((target) => layerOf(target) === to)
      .map((target) => `${path.relative(SRC, f)} -> ${path.relative(SRC, target)}`),
  )
}

/**
 * Known violations in files other work owns right now. Listed, so a new one still fails;
 * remove an entry when its file is fixed. None left: the hook spec types the adapters used to
 * take from src/lib live in src/core/ingest/hook-spec.ts (issue 12 point 1).
 */
const KNOWN: ReadonlySet<string> = new Set<string>([])

/** Files outside src/core/store that may speak SQL: none (the team's PostgreSQL store is src/core/store/team). */
const TEAM_SQL: ReadonlySet<string> = new Set<string>([])

const unknown = (list: readonly string[]): string[] => list.filter((v) => !KNOWN.has(v))

describe('layering (DESIGN §2)', () => {
  it('commands never import an adapter directly', () => {
    const bad = files(path.join(SRC, 'commands')).flatMap((f) =>
      imports(f)
        .filter((i) => i.includes('/adapters/'))
        .map((i) => `${path.relative(SRC, f)} -> ${i}`),
    )

    expect(bad).toEqual([])
  })

  it('adapters never import the store', () => {
    const bad = files(path.join(SRC, 'adapters')).flatMap((f) =>
      imports(f)
        .filter((i) => i.includes('/store/') || i === 'better-sqlite3')
        .map((i) => `${path.relative(SRC, f)} -> ${i}`),
    )

    expect(bad).toEqual([])
  })

  it('adapters never import src/lib (the shell sits above them)', () => {
    expect(unknown(crossings('adapters', 'lib'))).toEqual([])
  })

  it('core never imports src/lib', () => {
    expect(unknown(crossings('core', 'lib'))).toEqual([])
  })

  it('core and the adapters never import src/lib/team (the team application sits on the store, not in it)', () => {
    const team = [...crossings('core', 'lib'), ...crossings('adapters', 'lib')].filter((c) => c.includes(' -> lib/team/'))
    expect(unknown(team)).toEqual([])
  })

  it('src/lib/team never imports a command (commands call it, not the other way round)', () => {
    expect(unknown(crossings('lib', 'commands').filter((c) => c.startsWith('lib/team/')))).toEqual([])
    expect(crossings('lib', 'core').some((c) => c.startsWith('lib/team/'))).toBe(true)
  })

  it('commands never import another command (shared code lives in src/lib or src/core)', () => {
    expect(unknown(crossings('commands', 'commands'))).toEqual([])
  })

  it('the import check sees relative imports across layers, static and dynamic', () => {
    // A guard that reads nothing would pass every rule above: it must find the imports commands
    // make of src/lib (every command does), and the dynamic ones of src/core.
    const lib = crossings('commands', 'lib')
    expect(lib.some((c) => c.startsWith('commands/sessions.ts -> lib/'))).toBe(true)
    expect(crossings('commands', 'core').some((c) => c.startsWith('commands/disown.ts -> core/model/'))).toBe(true)
  })

  it('SQL lives only in src/core/store', () => {
    const sql = /\b(SELECT\s+[\w*(]|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+TABLE)\b/
    const bad = files(SRC)
      .filter((f) => !f.startsWith(path.join(SRC, 'core', 'store')) && !f.startsWith(path.join(SRC, 'adapters')))
      .filter((f) => sql.test(fs.readFileSync(f, 'utf8')))
      .map((f) => path.relative(SRC, f))
      .filter((f) => !TEAM_SQL.has(f))

    expect(bad).toEqual([])
  })
})
