/**
 * Fuzzed input for every adapter in ADAPTERS: truncated lines, binary garbage, 10 MB lines,
 * wrong JSON types, 10,000-level nesting, files replaced or truncated while they are read, and
 * hostile hook payloads. No crash, every bad line counted (parse_errors), and the listing still
 * comes out.
 *
 * Example files are found without knowing the adapters: every file under test/fixtures is tried
 * at every suffix of its path under every root of every adapter, and kept where the adapter's
 * match() takes it (plus a few generic SQLite names). A new adapter that ships fixtures in its
 * agent's layout is covered as soon as it is in ADAPTERS; one that is not found fails the first
 * test, naming itself.
 */
import Database from 'better-sqlite3'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {ADAPTERS} from '../../src/adapters/index.js'
import type {Adapter, AdapterEnv, FileMatch, JsonlParser, JsonRecord, LineParser, TextLineParser} from '../../src/core/ingest/adapter.js'
import {Ingester} from '../../src/core/ingest/engine.js'
import {consumeSpool} from '../../src/core/ingest/spool.js'
import {Store} from '../../src/core/store/store.js'
import {json, runCast} from '../helpers/cli.js'
import {CORPUS_NOW, random, type Random, removeTree, SEED} from './helpers.js'

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures')
const MB10 = 10 * 1024 * 1024
const DEEP = 10_000

interface Example {
  readonly adapter: Adapter
  /** Path relative to HOME. */
  readonly rel: string
  readonly match: FileMatch
  /** A valid file to start from (null: none, SQLite probes). */
  readonly seed: Buffer | null
}

interface Variant {
  readonly label: string
  readonly content: Buffer
  /** How many parse errors the engine must count: exact, or a range when the adapter may tolerate the input. */
  readonly errors: number | readonly [number, number]
}

let tmp: string
const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) removeTree(d)
})

function ctxFor(home: string): AdapterEnv {
  return {env: {HOME: home}, home}
}

function walkFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, {withFileTypes: true})) {
    const p = path.join(dir, e.name)
    if (e.isDirectory()) walkFiles(p, out)
    else if (e.isFile()) out.push(p)
  }

  return out
}

/**
 * Every (adapter, kind, role) an example file was found for: up to two files each, preferring
 * the fixtures laid out like the agent's own folder (the fixture path's folders before the
 * placed part match the root's last folders, dots aside): a Claude Code transcript also fits
 * pi's and Copilot's name patterns, but test/fixtures/pi/agent/sessions/… fits pi better.
 */
function findExamples(): Example[] {
  const home = '/nonexistent-home'
  const ctx = ctxFor(home)
  const files = walkFiles(FIXTURES)
  const plain = (seg: string): string => seg.replace(/^\./, '')
  const candidates: (Example & {score: number; source: string})[] = []
  for (const adapter of ADAPTERS) {
    const roots = adapter.roots(ctx)
    for (const f of files) {
      const parts = path.relative(FIXTURES, f).split(path.sep)
      for (const root of roots) {
        const tail = path.relative(home, root).split(path.sep).map(plain)
        for (let k = 1; k < parts.length; k++) {
          const full = path.join(root, ...parts.slice(k))
          const match = adapter.match(full, ctx)
          if (!match) continue
          let score = 0
          while (score < k && score < tail.length && plain(parts[k - 1 - score]!) === tail[tail.length - 1 - score]) score++
          candidates.push({adapter, match, rel: path.relative(home, full), score, seed: fs.readFileSync(f), source: f})
        }
      }
    }

    // SQLite sources have no static fixtures: probe the usual shapes of a database path.
    const md5 = '0123456789abcdef0123456789abcdef'
    const uuid = 'd0000000-0000-4000-8000-0000000000ff'
    for (const root of roots) {
      for (const dir of ['', md5, uuid, path.join(md5, uuid), 'opencode']) {
        for (const name of ['opencode.db', 'store.db', 'state.db', 'data.db', `${uuid}.db`]) {
          const full = path.join(root, dir, name)
          const match = adapter.match(full, ctx)
          if (match?.kind === 'sqlite')
            candidates.push({adapter, match, rel: path.relative(home, full), score: 0, seed: null, source: full})
        }
      }
    }
  }

  const out: Example[] = []
  const count = new Map<string, number>()
  for (const c of candidates.sort((a, b) => b.score - a.score)) {
    const best = Math.max(...candidates.filter((x) => x.adapter === c.adapter && x.seed).map((x) => x.score))
    if (c.seed && c.score < best && best > 0) continue
    const key = `${c.adapter.agent}/${c.match.kind}/${'role' in c.match ? c.match.role : ''}`
    if ((count.get(key) ?? 0) >= 2) continue
    if (out.some((e) => e.adapter === c.adapter && (e.rel === c.rel || (c.seed && (e as {source?: string}).source === c.source)))) continue
    count.set(key, (count.get(key) ?? 0) + 1)
    out.push({adapter: c.adapter, match: c.match, rel: c.rel, seed: c.seed, source: c.source} as Example)
  }

  return out
}

// ------------------------------------------------------------------ mutations

function lines(seed: Buffer): string[] {
  return seed
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
}

const isJson = (s: string): boolean => {
  try {
    JSON.parse(s)
    return true
  } catch {
    return false
  }
}

const join = (ls: readonly (string | Buffer)[]): Buffer =>
  Buffer.concat(ls.flatMap((l) => [Buffer.isBuffer(l) ? l : Buffer.from(l), Buffer.from('\n')]))

function garbage(r: Random, n: number): Buffer {
  const b = Buffer.alloc(n)
  for (let i = 0; i < n; i++) {
    let c = r.int(0, 255)
    while (c === 10 || c === 13) c = r.int(0, 255)
    b[i] = c
  }

  // Never valid JSON by accident: start with a byte no JSON text starts with.
  b[0] = 0xfe
  return b
}

/** Replace values deep inside a JSON value. */
function retype(v: unknown, how: 'numbers' | 'arrays' | 'nulls', depth = 0): unknown {
  if (typeof v === 'string') return how === 'numbers' ? 12_345 : how === 'nulls' ? null : v
  if (Array.isArray(v))
    return how === 'arrays'
      ? Object.fromEntries(v.map((x, i) => [String(i), retype(x, how, depth + 1)]))
      : v.map((x) => retype(x, how, depth + 1))
  if (v && typeof v === 'object') {
    const entries = Object.entries(v).map(([k, x]) => [k, retype(x, how, depth + 1)] as const)
    if (how === 'arrays' && depth > 0) return entries.map(([, x]) => x)
    if (how === 'nulls' && depth > 0) return Object.fromEntries(entries.map(([k]) => [k, null]))
    return Object.fromEntries(entries)
  }

  return how === 'nulls' ? null : v
}

/** The longest string value's path in a JSON value, to inflate or deepen it. */
function replaceLongestString(v: unknown, replacement: (s: string) => unknown): unknown {
  let best: {len: number; set: ((x: unknown) => void) | null} = {len: -1, set: null}
  const visit = (x: unknown, set: (y: unknown) => void): void => {
    if (typeof x === 'string' && x.length > best.len) best = {len: x.length, set}
    else if (Array.isArray(x)) x.forEach((y, i) => visit(y, (z) => (x[i] = z)))
    else if (x && typeof x === 'object')
      for (const k of Object.keys(x)) visit((x as Record<string, unknown>)[k], (z) => ((x as Record<string, unknown>)[k] = z))
  }

  const root = {v}
  visit(v, (z) => (root.v = z))
  if (best.set) {
    const {set, len} = best
    set(replacement('x'.repeat(Math.max(len, 0))))
  }

  return root.v
}

const deepArray = (): string => '['.repeat(DEEP) + ']'.repeat(DEEP)
const deepObject = (): string => '{"a":'.repeat(DEEP) + '1' + '}'.repeat(DEEP)
/** Stands in for a deep value while a line is built with JSON.stringify (which cannot write one). */
const DEEP_MARK = '\u0000deep\u0000'

function jsonlVariants(r: Random, seed: Buffer): Variant[] {
  const ls = lines(seed)
  const objects = ls.map((l, i) => ({i, l})).filter(({l}) => isJson(l) && typeof JSON.parse(l) === 'object')
  const body = objects.filter(({i}) => i > 0)
  const pick = (n: number): number[] => r.shuffle(body.map(({i}) => i)).slice(0, n)
  const out: Variant[] = []

  // Lines cut short, as a crash mid-write leaves them (the first line, often a header, kept).
  const cut = new Set(pick(3))
  let cutCount = 0
  const truncated = ls.map((l, i) => {
    if (!cut.has(i)) return l
    for (let tries = 0; tries < 10; tries++) {
      const s = l.slice(0, r.int(1, Math.max(1, l.length - 2)))
      if (!isJson(s) && s.trim() !== '') {
        cutCount++
        return s
      }
    }

    return l
  })
  out.push({content: join(truncated), errors: cutCount, label: 'truncated lines'})

  const withBinary: (string | Buffer)[] = [...ls]
  for (let k = 0; k < 3; k++) withBinary.splice(r.int(1, withBinary.length), 0, garbage(r, r.int(20, 400)))
  out.push({content: join(withBinary), errors: 3, label: 'binary garbage'})

  const huge = [...ls]
  huge.splice(Math.min(1, huge.length), 0, 'x'.repeat(MB10))
  out.push({content: join(huge), errors: 1, label: 'a 10 MB garbage line'})

  if (body.length > 0) {
    const inflated = [...ls]
    const at = r.pick(body).i
    inflated[at] = JSON.stringify(replaceLongestString(JSON.parse(ls[at]!), () => 'y'.repeat(MB10)))
    out.push({content: join(inflated), errors: 0, label: 'a 10 MB valid line'})
  }

  for (const how of ['numbers', 'arrays', 'nulls'] as const) {
    const idx = pick(5)
    const typed = ls.map((l, i) => (idx.includes(i) ? JSON.stringify(retype(JSON.parse(l), how)) : l))
    out.push({content: join(typed), errors: [0, idx.length], label: `wrong types (${how})`})
  }

  const tops = ['42', '"text"', 'null', '[]', 'true', '{}', '[{"type":"user"}]', '-1e309']
  out.push({content: join([...ls.slice(0, 1), ...tops, ...ls.slice(1)]), errors: [0, tops.length], label: 'non-record JSON lines'})

  const deep = [deepArray(), deepObject()]
  if (body.length > 0)
    deep.push(
      JSON.stringify(replaceLongestString(JSON.parse(r.pick(body).l), () => DEEP_MARK)).replace(JSON.stringify(DEEP_MARK), deepObject()),
    )
  out.push({content: join([...ls.slice(0, 1), ...deep, ...ls.slice(1)]), errors: [0, deep.length], label: `${DEEP}-level nesting`})

  return out
}

function wholeVariants(r: Random, seed: Buffer): Variant[] {
  const text = seed.toString('utf8')
  const parsed = isJson(text) ? (JSON.parse(text) as unknown) : null
  const out: Variant[] = [
    {content: Buffer.from(text.slice(0, Math.floor(text.length / 2))), errors: [0, 1], label: 'cut in half'},
    {content: garbage(r, 2000), errors: [0, 1], label: 'binary garbage'},
    {content: Buffer.alloc(0), errors: [0, 1], label: 'empty'},
    {content: Buffer.from(deepObject()), errors: [0, 1], label: `${DEEP}-level nesting`},
    {content: Buffer.from('"' + 'z'.repeat(MB10) + '"'), errors: [0, 1], label: 'a 10 MB string'},
  ]
  if (parsed !== null && typeof parsed === 'object') {
    for (const how of ['numbers', 'arrays', 'nulls'] as const)
      out.push({content: Buffer.from(JSON.stringify(retype(parsed, how))), errors: [0, 1], label: `wrong types (${how})`})
    out.push({
      content: Buffer.from(JSON.stringify(replaceLongestString(parsed, () => DEEP_MARK)).replace(JSON.stringify(DEEP_MARK), deepObject())),
      errors: [0, 1],
      label: 'a field nested 10,000 deep',
    })
  }

  return out
}

function sqliteVariants(r: Random): Variant[] {
  const dir = fs.mkdtempSync(path.join(tmp, 'sqlite-'))
  const make = (sql: string): Buffer => {
    const f = path.join(dir, `${r.hex(8)}.db`)
    const db = new Database(f)
    db.exec(sql)
    db.close()
    return fs.readFileSync(f)
  }

  const valid =
    make(`CREATE TABLE session (id TEXT PRIMARY KEY, data TEXT); CREATE TABLE meta (key TEXT, value TEXT); CREATE TABLE blobs (id TEXT, data BLOB);
    INSERT INTO session VALUES ('s1', '{"title": 12}'); INSERT INTO meta VALUES ('0', 'nothex'); INSERT INTO blobs VALUES ('b', x'00ff');`)
  return [
    {content: garbage(r, 8192), errors: [0, 1], label: 'binary garbage'},
    {content: Buffer.alloc(0), errors: [0, 1], label: 'empty'},
    {content: valid.subarray(0, Math.floor(valid.length / 2)), errors: [0, 1], label: 'truncated database'},
    {content: valid, errors: [0, 1], label: 'foreign schema with wrong types'},
  ]
}

function variantsFor(r: Random, e: Example): Variant[] {
  if (e.match.kind === 'sqlite') return sqliteVariants(r)
  if (!e.seed) return []
  return e.match.kind === 'jsonl' ? jsonlVariants(r, e.seed) : wholeVariants(r, e.seed)
}

// ------------------------------------------------------------------ running the engine

function freshHome(): {home: string; castHome: string} {
  const dir = fs.mkdtempSync(path.join(tmp, 'h-'))
  fs.mkdirSync(path.join(dir, 'home'))
  return {castHome: path.join(dir, 'cast'), home: path.join(dir, 'home')}
}

function ingest(home: string, castHome: string, adapters: readonly Adapter[] = ADAPTERS): {store: Store; ingester: Ingester} {
  const store = new Store(castHome)
  const ingester = new Ingester(store, adapters, ctxFor(home), {clock: () => CORPUS_NOW, device: 'box', me: 'me@example.com'})
  return {ingester, store}
}

/** The parser as it is, except that `before` runs before each line is fed (a file changing under it). */
function meddle(parser: LineParser<any>, before: () => void): LineParser<any> {
  if (parser.lines === 'text') {
    const text: TextLineParser<any> = {
      ...parser,
      line: (state, line: string, offset) => {
        before()
        return parser.line(state, line, offset)
      },
    }
    return text
  }

  const json: JsonlParser<any> = {
    ...parser,
    line: (state, rec: JsonRecord, offset) => {
      before()
      return parser.line(state, rec, offset)
    },
  }
  return json
}

function parseErrors(store: Store, file: string): number {
  return store.loadFiles().get(file)?.parseErrors ?? 0
}

let examples: Example[]
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-fuzz-'))
  dirs.push(tmp)
  examples = findExamples()
  console.log(
    `[reliability] fuzz: seed ${SEED}; examples: ${examples.map((e) => `${e.adapter.agent}:${e.match.kind}:${path.basename(e.rel)}`).join(', ')}`,
  )
})

describe('fuzzed adapter input', () => {
  it('finds example files for every adapter in ADAPTERS', () => {
    const missing = ADAPTERS.filter((a) => !examples.some((e) => e.adapter === a && e.match.kind !== 'sqlite')).map((a) => a.agent)
    const sqliteMissing = ADAPTERS.filter((a) => a.readSqlite && !examples.some((e) => e.adapter === a && e.match.kind === 'sqlite')).map(
      (a) => a.agent,
    )

    expect(missing, "adapters with no fixture file their match() takes: add fixtures under test/fixtures in the agent's layout").toEqual([])
    expect(sqliteMissing, 'adapters that read SQLite but match none of the probed database names: add the name to findExamples()').toEqual(
      [],
    )
  })

  for (const agent of ADAPTERS.map((a) => a.agent)) {
    it(`${agent}: every mutation is read without a crash, each bad line counted once, nothing re-read on resync`, () => {
      const r = random(SEED + agent.length)
      const mine = examples.filter((e) => e.adapter.agent === agent)
      const report: string[] = []
      for (const e of mine) {
        for (const v of variantsFor(r, e)) {
          const {castHome, home} = freshHome()
          const file = path.join(home, e.rel)
          fs.mkdirSync(path.dirname(file), {recursive: true})
          fs.writeFileSync(file, v.content)
          const {ingester, store} = ingest(home, castHome)
          try {
            const what = `${agent} ${e.match.kind} ${path.basename(e.rel)}: ${v.label}`
            let first: ReturnType<Ingester['sync']> | undefined
            expect(() => (first = ingester.sync()), what).not.toThrow()
            // Counted in the pass; for an append-only file also kept in the files table (cast explain).
            const n = first!.parseErrors
            report.push(`${path.basename(e.rel)} ${v.label}: ${n}`)
            if (typeof v.errors === 'number') expect(n, what).toBe(v.errors)
            else {
              expect(n, what).toBeGreaterThanOrEqual(v.errors[0])
              expect(n, what).toBeLessThanOrEqual(v.errors[1])
            }

            let again: ReturnType<Ingester['sync']> | undefined
            expect(() => (again = ingester.sync()), what).not.toThrow()
            if (e.match.kind === 'jsonl') {
              // Read to the end (the last line is complete); a resync reads nothing and counts nothing twice.
              expect(parseErrors(store, file), what).toBe(n)
              expect(store.loadFiles().get(file)?.offset, what).toBe(v.content.length)
              expect(again!.read, what).toBe(0)
              expect(parseErrors(store, file), what).toBe(n)
            } else if (n === 0) {
              // A file rewritten whole that read fine is not read again; a bad one may be retried.
              expect(again!.read, what).toBe(0)
            }

            expect(() => store.loadSessions(), what).not.toThrow()
          } finally {
            store.close()
            removeTree(path.dirname(castHome))
          }
        }
      }

      console.log(`[reliability] fuzz ${agent}: ${report.join('; ')}`)
    }, 120_000)
  }

  it('a file replaced, truncated or appended to while it is read: no crash, and the next sync reads what is there now', () => {
    const jsonl = examples.filter((e) => e.match.kind === 'jsonl' && e.seed && lines(e.seed).length >= 4)
    const seenAgents = new Set<string>()
    for (const e of jsonl) {
      if (seenAgents.has(e.adapter.agent)) continue
      seenAgents.add(e.adapter.agent)
      const ls = lines(e.seed!)
      const before = join(ls)
      const after = join(ls.slice(0, Math.ceil(ls.length / 2)))
      for (const how of ['replaced', 'truncated', 'appended'] as const) {
        const {castHome, home} = freshHome()
        const file = path.join(home, e.rel)
        fs.mkdirSync(path.dirname(file), {recursive: true})
        fs.writeFileSync(file, before)
        const final = how === 'appended' ? Buffer.concat([before, after]) : after
        let fed = 0
        // The adapter as it is, except that the file changes under it after the second line.
        const parser = e.adapter.jsonl!
        const meddling: Adapter = {
          ...e.adapter,
          jsonl: meddle(parser, () => {
            if (++fed === 2) {
              if (how === 'replaced') {
                fs.writeFileSync(`${file}.new`, final)
                fs.renameSync(`${file}.new`, file)
              } else if (how === 'truncated') {
                fs.truncateSync(file, 0)
                fs.writeFileSync(file, final)
              } else {
                fs.appendFileSync(file, after)
              }
            }
          }),
        }
        const what = `${e.adapter.agent} ${path.basename(e.rel)} ${how} mid-read`
        const a = ingest(
          home,
          castHome,
          ADAPTERS.map((x) => (x === e.adapter ? meddling : x)),
        )
        expect(() => a.ingester.sync(), what).not.toThrow()
        a.store.close()
        const b = ingest(home, castHome)
        expect(() => b.ingester.sync(), what).not.toThrow()
        expect(b.store.loadFiles().get(file)?.offset, what).toBe(final.length)
        const got = new Map(b.store.loadSessions().map((s) => [s.id, {facts: s.facts, state: s.state}]))
        b.store.close()

        // The same file read once, cleanly.
        const clean = freshHome()
        fs.mkdirSync(path.dirname(path.join(clean.home, e.rel)), {recursive: true})
        fs.writeFileSync(path.join(clean.home, e.rel), final)
        const c = ingest(clean.home, clean.castHome)
        c.ingester.sync()
        for (const s of c.store.loadSessions()) {
          const want = JSON.parse(JSON.stringify({facts: s.facts, state: s.state}).replaceAll(clean.home, home))
          expect(got.get(s.id), `${what}: session ${s.nativeId}`).toEqual(want)
        }

        c.store.close()
      }
    }

    expect(seenAgents.size).toBeGreaterThan(0)
  }, 120_000)

  it('a JSON file caught mid-rewrite (torn) keeps what it said before, for every adapter: no process, ask or title flickers away', () => {
    const whole = examples.filter((e) => e.match.kind === 'whole' && e.seed && isJson(e.seed.toString('utf8')))
    const checked: string[] = []
    const flickers: string[] = []
    for (const e of whole) {
      const {castHome, home} = freshHome()
      const file = path.join(home, e.rel)
      fs.mkdirSync(path.dirname(file), {recursive: true})
      fs.writeFileSync(file, e.seed!)
      const {ingester, store} = ingest(home, castHome)
      const said = (): unknown => store.q('SELECT native_id, data FROM contributions WHERE path = ? ORDER BY native_id').all(file)
      try {
        ingester.sync()
        const before = said()
        if ((before as unknown[]).length === 0) continue
        checked.push(`${e.adapter.agent}:${path.basename(e.rel)}`)
        const text = e.seed!.toString('utf8')
        fs.writeFileSync(file, text.slice(0, Math.floor(text.length / 2)))
        expect(() => ingester.sync()).not.toThrow()
        if (JSON.stringify(said()) !== JSON.stringify(before)) flickers.push(`${e.adapter.agent} ${e.rel}`)
        fs.writeFileSync(file, e.seed!)
        ingester.sync()
        expect(said()).toEqual(before)
      } finally {
        store.close()
      }
    }

    console.log(`[reliability] torn JSON files checked: ${checked.join(', ')}`)
    expect(checked.length).toBeGreaterThan(0)
    expect(flickers, 'a torn file must throw from parseWhole (the engine then keeps what the file said), not read as empty').toEqual([])
  })

  it('hostile hook payloads for every adapter with hooks: applied as data or counted, never thrown, the spool always drains', () => {
    const {castHome, home} = freshHome()
    const {ingester, store} = ingest(home, castHome)
    const spool = path.join(castHome, 'spool')
    fs.mkdirSync(spool, {recursive: true})
    const hooked = ADAPTERS.filter((a) => a.hooks)
    const payloads: string[] = [
      '{"session_id": "s-1", "hook_event_name": "Stop"',
      '\u0000\u00ff\u00fe binary',
      '[]',
      'null',
      '42',
      JSON.stringify({hook_event_name: 12, session_id: 's-2'}),
      JSON.stringify({hook_event_name: ['Stop'], session_id: {id: 's-3'}}),
      `{"hook_event_name":"PreToolUse","session_id":"s-4","tool_name":"AskUserQuestion","tool_input":{"questions":[${deepArray()}]}}`,
      `{"hook_event_name":"PreToolUse","session_id":"s-5","tool_name":"AskUserQuestion","tool_input":${deepObject()}}`,
      JSON.stringify({cwd: null, hook_event_name: 'Notification', message: null, notification_type: null, session_id: 's-6'}),
      JSON.stringify({
        hook_event_name: 'Notification',
        message: {text: 1},
        notification_type: ['permission_prompt'],
        session_id: 's-7',
        tool_name: 7,
      }),
      JSON.stringify({hookEventName: 'BeforeTool', sessionId: 's-8', toolName: null}),
      JSON.stringify({
        'agent-turn-complete': true,
        'input-messages': 'x',
        'last-assistant-message': 5,
        'thread-id': 's-9',
        type: 'agent-turn-complete',
      }),
      JSON.stringify({conversation_id: 's-10', hook_event_name: 'beforeShellExecution', command: {}}),
      JSON.stringify({sessionId: 's-11', timestamp: 'not a time', toolName: [], toolArgs: 3}),
      '{"session_id":"s-12","hook_event_name":"Stop","x":"' + 'q'.repeat(3 * 1024 * 1024) + '"}',
    ]
    let i = 0
    for (const a of hooked) {
      for (const p of payloads) fs.writeFileSync(path.join(spool, `${1_795_000_000 + i}.000000000.${100 + i++}.${a.agent}.json`), p)
    }

    try {
      expect(() => consumeSpool(store, ingester, castHome, () => CORPUS_NOW)).not.toThrow()
      expect(fs.readdirSync(spool).filter((n) => !n.startsWith('.'))).toEqual([])
      expect(() => store.loadSessions()).not.toThrow()
      // The unparsable ones at least (the first five of each agent's list) are counted.
      expect(store.loadFiles().get('hooks://spool')?.parseErrors ?? 0).toBeGreaterThanOrEqual(5 * hooked.length)
    } finally {
      store.close()
    }
  })

  it('the built CLI lists a home where every adapter has a file with every kind of damage, and explain counts the bad lines', async () => {
    const r = random(SEED + 99)
    const {castHome, home} = freshHome()
    const damaged: {agent: string; file: string}[] = []
    for (const e of examples) {
      if (e.match.kind !== 'jsonl' || !e.seed) continue
      if (damaged.some((d) => d.agent === e.adapter.agent)) continue
      // Everything at once: cut lines, binary, wrong types, deep nesting, a 10 MB line.
      const ls = lines(e.seed)
      const bad = [ls[1]?.slice(0, 10) ?? '{"cut', garbage(r, 100), deepArray(), 'x'.repeat(MB10)]
      const file = path.join(home, e.rel)
      fs.mkdirSync(path.dirname(file), {recursive: true})
      fs.writeFileSync(file, join([...ls.slice(0, 1), ...bad, ...ls.slice(1)]))
      damaged.push({agent: e.adapter.agent, file})
    }

    const env = {
      CAST_HOME: castHome,
      CAST_NOW: new Date(CORPUS_NOW).toISOString(),
      CAST_USER: 'me@example.com',
      HOME: home,
      NO_COLOR: '1',
      PATH: process.env.PATH ?? '/usr/bin:/bin',
    }
    const listing = await runCast(['sessions', '--json', '--all'], {env})

    expect(listing.code, listing.stderr).toBe(0)
    expect(listing.stderr).toBe('')
    const sessions = json(listing).sessions as {id: string; agent: string}[]
    for (const {agent} of damaged)
      expect(
        sessions.some((s) => s.agent === agent),
        `${agent} session listed`,
      ).toBe(true)
    const one = sessions.find((s) => s.agent === damaged[0]!.agent)!
    const explained = await runCast(['explain', one.id, '--json'], {env})
    expect(explained.code, explained.stderr).toBe(0)
    const files = json(explained).files as {path: string; parse_errors: number}[]
    expect(files.find((f) => f.path === damaged[0]!.file)?.parse_errors).toBeGreaterThanOrEqual(3)
    const human = await runCast(['explain', one.id], {env})
    expect(human.stdout).toMatch(/[3-9] malformed line\(s\) skipped/)
  }, 120_000)
})

afterEach(() => {
  // Every store is closed by its test; temp homes go with tmp in afterAll.
})
