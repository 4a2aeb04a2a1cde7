/**
 * The versioned JSON contract against real output: docs/schema/ is what `npm run schema` writes,
 * and what the built CLI prints over the demo store (`cast sessions --json --all`, the inbox,
 * `cast explain --json`, a triage verb's answer, a refusal, and a live `cast sessions -w --json`
 * with a transition) is valid against those files, read by a JSON Schema validator (Ajv, through
 * the MCP SDK's provider), not by the zod schemas they came from. A field renamed in a copy of
 * that output is rejected.
 */
import fs from 'node:fs'
import path from 'node:path'
import {AjvJsonSchemaValidator} from '@modelcontextprotocol/sdk/validation/ajv'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {SCHEMA_VERSION} from '../../src/core/model/wire.js'
import {schemaFileText, WIRE_SCHEMAS, wireJsonSchemas, type WireShape} from '../../src/core/model/wire-schema.js'
import {json, killStarted, makeHome, ROOT, runCast, startCast, type TempHome, waitForWatcher} from '../helpers/cli.js'

const DIR = path.join(ROOT, 'docs', 'schema')
const ajv = new AjvJsonSchemaValidator()
const validators = new Map<WireShape, (x: unknown) => {valid: boolean; errorMessage?: string}>()

/** The checked-in file's verdict on `value` (the file as docs/schema/ holds it). */
function check(shape: WireShape, value: unknown): {valid: boolean; errorMessage?: string} {
  let v = validators.get(shape)
  if (!v) {
    v = ajv.getValidator(JSON.parse(fs.readFileSync(path.join(DIR, `${shape}.json`), 'utf8')))
    validators.set(shape, v)
  }

  return v(value)
}

function expectValid(shape: WireShape, value: unknown): void {
  const r = check(shape, value)
  expect(r.errorMessage, `${shape}: ${JSON.stringify(value).slice(0, 300)}`).toBeUndefined()
  expect(r.valid).toBe(true)
  // The source agrees with its file.
  expect(WIRE_SCHEMAS[shape].safeParse(value).success).toBe(true)
}

/** A deep copy with the key `from` of the object at `at` renamed to `to`. */
function renamed(value: unknown, at: (x: any) => any, from: string, to: string): unknown {
  const copy = structuredClone(value)
  const o = at(copy) as Record<string, unknown>
  expect(Object.keys(o)).toContain(from)
  o[to] = o[from]
  delete o[from]
  return copy
}

describe('docs/schema', () => {
  it('is what the generator writes from the zod schemas (npm run schema)', () => {
    const want = wireJsonSchemas()
    const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.json'))
    expect(files.sort()).toEqual(
      Object.keys(want)
        .map((n) => `${n}.json`)
        .sort(),
    )
    for (const [name, schema] of Object.entries(want))
      expect(fs.readFileSync(path.join(DIR, `${name}.json`), 'utf8'), name).toBe(schemaFileText(schema))
  })
})

describe('the CLI’s JSON on the demo store', () => {
  let h: TempHome
  let env: Record<string, string>
  let all: any
  let card: Awaited<ReturnType<typeof runCast>>

  beforeAll(async () => {
    h = makeHome()
    const r = await runCast(['demo', '--keep', '--json'], {env: {...h.env, TMPDIR: h.dir}, timeout: 120_000})
    expect(r.code).toBe(0)
    const demo = json(r)
    env = {...h.env, CAST_HOME: demo.cast_home, HOME: demo.home, TMPDIR: h.dir}
    // A decision card on a dormant session, so the listing carries one.
    const dormant = demo.sessions.find((s: any) => s.state === 'dormant')
    card = await runCast(
      [
        'decide',
        'Which schema?',
        '--option',
        'Wide :: one migration',
        '--option',
        'EAV :: flexible',
        '--recommend',
        '1',
        '--session',
        dormant.id,
        '--json',
      ],
      {env},
    )
    expect(card.code).toBe(0)
    const listed = await runCast(['sessions', '--json', '--all'], {env})
    expect(listed.code).toBe(0)
    all = json(listed)
  }, 180_000)

  afterAll(() => {
    killStarted()
    h?.cleanup()
  })

  it('cast sessions --json --all and the inbox carry the schema and are valid listings', async () => {
    expect(all.schema).toBe(SCHEMA_VERSION)
    expect(all.sessions.length).toBeGreaterThan(10)
    expectValid('listing', all)
    for (const s of all.sessions) expectValid('session', s)
    expect(all.sessions.filter((s: any) => s.decision !== null)).toHaveLength(1)
    for (const s of all.sessions) if (s.decision) expectValid('decision', s.decision)
    // cast decide --json: the card, in an envelope that carries the version.
    const {schema, ...decision} = json(card)
    expect(schema).toBe(SCHEMA_VERSION)
    expectValid('decision', decision)
    const inbox = json(await runCast(['sessions', '--json'], {env}))
    expectValid('listing', inbox)
  })

  it('cast explain --json is valid for sessions of every section', async () => {
    const picks = new Map<string, string>()
    for (const s of all.sessions) if (!picks.has(s.bucket)) picks.set(s.bucket, s.id)
    expect(picks.size).toBeGreaterThan(5)
    for (const id of picks.values()) {
      const r = await runCast(['explain', id, '--json'], {env})
      expect(r.code).toBe(0)
      const x = json(r)
      expect(x.schema).toBe(SCHEMA_VERSION)
      expectValid('explain', x)
    }
  })

  it('a triage verb’s answer and a refusal are valid', async () => {
    const target = all.sessions.find((s: any) => !s.pinned && s.bucket === 'done')
    const pinned = await runCast(['pin', target.id, '--json'], {env})
    expect(pinned.code).toBe(0)
    expectValid('verb-outcome', json(pinned))
    const refused = await runCast(['explain', 'zzzz-no-such-session', '--json'], {env})
    expect(refused.code).toBe(3)
    expectValid('refusal', json(refused))
    expect(json(refused).error.code).toBe('not_found')
  })

  it('a live cast sessions -w --json: its snapshot lines and a transition line are valid', async () => {
    const w = startCast(['sessions', '-w', '--json', '--snapshot'], env)
    await waitForWatcher(env.CAST_HOME!)
    const first = JSON.parse(await w.nextLine(60_000))
    expect(first.schema).toBe(SCHEMA_VERSION)
    expectValid('watch-line', first)

    // A person files a working session as done: the log's transition reaches the stream.
    const target = all.sessions.find((s: any) => s.state === 'working' || s.state === 'needs_input')
    expect((await runCast(['mark', 'done', target.id], {env})).code).toBe(0)
    let line: any
    const deadline = Date.now() + 60_000
    while (Date.now() < deadline) {
      line = JSON.parse(await w.nextLine(60_000))
      expectValid('watch-line', line)
      if (line.event !== 'snapshot' && line.id === target.id) break
    }

    expect(line).toMatchObject({event: 'transition', id: target.id, schema: SCHEMA_VERSION, to: 'done'})
    expectValid('transition-line', line)
    await w.stop()

    // A renamed field of the real line is rejected.
    expect(
      check(
        'transition-line',
        renamed(line, (x) => x, 'session_id', 'sessionId'),
      ).valid,
    ).toBe(false)
  })

  it('rejects a copy of the real output with one field renamed, at the top or deep inside', async () => {
    expect(check('listing', all).valid).toBe(true)
    expect(
      check(
        'listing',
        renamed(all, (x) => x, 'older_hidden', 'olderHidden'),
      ).valid,
    ).toBe(false)
    expect(
      check(
        'listing',
        renamed(all, (x) => x.sessions[3], 'short_id', 'shortId'),
      ).valid,
    ).toBe(false)
    expect(
      check(
        'listing',
        renamed(all, (x) => x.counts, 'needs_input', 'needsInput'),
      ).valid,
    ).toBe(false)
    const asking = all.sessions.findIndex((s: any) => s.ask !== null)
    expect(
      check(
        'listing',
        renamed(all, (x) => x.sessions[asking].ask, 'kind', 'type'),
      ).valid,
    ).toBe(false)
    // A listing of another version is not this one.
    expect(check('listing', {...all, schema: SCHEMA_VERSION + 1}).valid).toBe(false)
    const x = json(await runCast(['explain', all.sessions[0].id, '--json'], {env}))
    expect(
      check(
        'explain',
        renamed(x, (y) => y.holds, 'changed_files', 'files_changed'),
      ).valid,
    ).toBe(false)
    expect(
      check(
        'explain',
        renamed(x, (y) => y.chain[0], 'matched', 'match'),
      ).valid,
    ).toBe(false)
  })
})
