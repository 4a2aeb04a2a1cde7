/**
 * Streaming the big list (issue 16 point 4): `cast sessions --json --all` writes the listing a
 * chunk of rows at a time; its bytes must equal the non-streamed JSON of the same listing, on a
 * store indexed from real Claude Code 2.1.328 and Codex 0.169.0 files, with cast's records on some
 * sessions (pinned, stashed, dismissed, snoozed) and more rows than one chunk.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {ADAPTERS} from '../../src/adapters/index.js'
import {Ingester} from '../../src/core/ingest/engine.js'
import {addOwner} from '../../src/core/store/ownership.js'
import {Store} from '../../src/core/store/store.js'
import {setLabel} from '../../src/core/store/triage.js'
import {inboxListing, streamListing} from '../../src/lib/views/stream-listing.js'
import {buildListing, type ListFilters} from '../../src/lib/views/views.js'

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures')
const NOW = Date.parse('2026-12-01T12:00:00Z')
const ME = 'me@example.com'
let dir: string
let store: Store

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-stream-list-'))
  store = new Store(path.join(dir, 'cast'))
})
afterEach(() => {
  store.close()
  fs.rmSync(dir, {force: true, recursive: true})
})

/** HOME with every real transcript, each `copies` times under fresh session ids. */
function realHome(copies: number): string {
  const home = path.join(dir, 'home')
  const claude = path.join(FIXTURES, 'claude-code', 'real-2.1.328')
  const transcripts = fs.readdirSync(claude).filter((f) => f.endsWith('.jsonl'))
  const rollouts = fs
    .readdirSync(path.join(FIXTURES, 'codex', 'real-0.169.0'), {recursive: true, withFileTypes: true})
    .filter((e) => e.isFile() && e.name.endsWith('.jsonl'))
  for (let i = 0; i < copies; i++) {
    for (const [j, f] of transcripts.entries()) {
      const id = `${String(i).padStart(8, '0')}-0000-4000-8000-${String(j).padStart(12, '0')}`
      const file = path.join(home, '.claude', 'projects', `-src-p${i % 7}`, `${id}.jsonl`)
      fs.mkdirSync(path.dirname(file), {recursive: true})
      fs.copyFileSync(path.join(claude, f), file)
    }

    for (const [j, e] of rollouts.entries()) {
      const id = `01a23105-${String(i).padStart(4, '0')}-7000-8000-${String(j).padStart(12, '0')}`
      const file = path.join(home, '.codex', 'sessions', '2026', '12', '01', `rollout-2026-12-01T09-00-00-${id}.jsonl`)
      fs.mkdirSync(path.dirname(file), {recursive: true})
      fs.copyFileSync(path.join(e.parentPath, e.name), file)
    }
  }

  return home
}

function index(copies: number, runner = ME): void {
  const home = realHome(copies)
  new Ingester(store, ADAPTERS, {env: {HOME: home}, home}, {clock: () => NOW, device: 'box', me: runner}).sync()
  const ids = store.loadSessions().map((r) => r.id)
  store.tx(() => {
    for (const [i, id] of ids.entries()) {
      if (i % 11 === 0) store.patchRecords(id, {pinned: true})
      else if (i % 13 === 0) store.patchRecords(id, {filedAt: NOW - 3_600_000, filing: 'stashed'})
      else if (i % 17 === 0) store.patchRecords(id, {filedAt: NOW - 3_600_000, filing: 'dismissed'})
      else if (i % 19 === 0) store.patchRecords(id, {filedAt: NOW - 3_600_000, filing: 'snoozed', snoozedUntil: NOW + 86_400_000})
    }
  })
  store.reconcile(NOW, ids)
}

/** The streamed bytes (read once, and read twice as past ONE_PASS_ROWS: they must agree) and the whole listing's. */
function both(f: ListFilters, chunk = 7): {streamed: string; whole: string} {
  const stream = (onePassRows?: number): string => {
    let out = ''
    streamListing(
      store,
      ME,
      NOW,
      f,
      (c) => {
        out += c
      },
      chunk,
      onePassRows,
    )
    return out
  }

  const streamed = stream()
  expect(stream(0)).toBe(streamed)
  const whole = JSON.stringify(buildListing(store.loadSessions(), ME, NOW, f).listing, null, 2) + '\n'
  return {streamed, whole}
}

describe('cast sessions --json --all, streamed', () => {
  it('writes the same bytes as the whole listing, over many chunks of rows', () => {
    index(12)
    for (const chunk of [7, 500]) {
      const {streamed, whole} = both({all: true, recencyMs: 7 * 86_400_000}, chunk)
      expect(JSON.parse(streamed).sessions.length).toBeGreaterThan(7 * 5)
      expect(streamed).toBe(whole)
    }
  })

  it('the same under filters, and for an empty listing', () => {
    index(3)
    for (const f of [{agent: ['codex']}, {states: ['needs_input']}, {cwd: '/nowhere'}, {label: ['none']}]) {
      const {streamed, whole} = both({all: true, ...f})
      expect(streamed).toBe(whole)
    }

    expect(both({agent: ['codex'], all: true}).streamed).toContain('"agent": "codex"')
    expect(JSON.parse(both({all: true, cwd: '/nowhere'}).streamed).sessions).toEqual([])
  })
})

describe('the streamed list reads each row once: its first pass takes the keys from SQL', () => {
  it('the same bytes with owners, labels, a live and a quiet row, and another runner; without --all too', () => {
    index(3)
    const ids = store.loadSessions().map((r) => r.id)
    store.tx(() => {
      addOwner(store, ids[1]!, ME, ME, NOW)
      addOwner(store, ids[2]!, 'ana@example.com', ME, NOW)
      addOwner(store, ids[3]!, ME.toUpperCase(), ME, NOW)
      setLabel(store, ids[4]!, ME, 'release')
      setLabel(store, ids[5]!, 'ana@example.com', 'release')
      const set = (id: string, sql: string, ...args: unknown[]): void =>
        void store.q(`UPDATE sessions SET ${sql} WHERE id = ?`).run(...args, id)
      set(ids[6]!, `facts = json_set(facts, '$.process', json('{"alive":true,"pid":4242}'))`)
      set(ids[7]!, `facts = json_set(facts, '$.process', json('{"alive":false,"pid":4243}'))`)
      // Working, silent for an hour: quiet.
      set(ids[8]!, `state = 'working', working_since = ?, facts = json_set(facts, '$.lastOutputAt', ?)`, NOW - 7_200_000, NOW - 3_600_000)
      set(ids[9]!, `runner = 'ana@example.com'`)
    })
    const cases: ListFilters[] = [{}, {label: ['release']}, {quiet: true}, {states: ['working', 'needs_input']}, {cwd: '/src'}]
    for (const f of cases) {
      const {streamed, whole} = both({all: true, ...f})
      expect(streamed).toBe(whole)
    }

    const all = JSON.parse(both({all: true}).streamed)
    expect(all.counts.live).toBe(1)
    expect(all.counts.quiet).toBe(1)
    expect(JSON.parse(both({all: true, label: ['release']}).streamed).sessions.map((s: {id: string}) => s.id)).toEqual([ids[4]])
    // Without --all the filters read a row's asks: the full rows are read (same bytes).
    const inbox = both({recencyMs: 7 * 86_400_000})
    expect(inbox.streamed).toBe(inbox.whole)
    // The keys are read by SQLite from the facts: no row can hold facts it cannot read (the inbox
    // index of migration 6 reads them on every write).
    expect(() => store.q(`UPDATE sessions SET facts = '{"cwd": ' WHERE id = ?`).run(ids[10])).toThrow(/malformed JSON/)
  })
})

describe('the streamed list loads its rows for the listing alone (store/listing-rows.ts)', () => {
  it('the same bytes as loadSessions with a decision card, a park, a rename, a spawned pane, owners, subagents and facts missing keys', () => {
    index(2)
    const rows = store.loadSessions()
    const ids = rows.map((r) => r.id)
    store.tx(() => {
      // Two subagents under ids[0], a grandchild under one: their usage is summed into its tree.
      store.q('UPDATE sessions SET parent_id = ? WHERE id IN (?, ?)').run(ids[0], ids[9], ids[8])
      store.q('UPDATE sessions SET parent_id = ? WHERE id = ?').run(ids[8], ids[10])
      store
        .q(
          `INSERT INTO decisions (id, session_id, question, options, asked_at, asked_by) VALUES
           ('d1', ?, 'Ship it?', '[{"label":"yes","effect":"continue"},{"label":"no","effect":"stop"}]', ?, ?),
           ('d2', ?, 'Later card', '[{"label":"a","effect":"continue"},{"label":"b","effect":"stop"}]', ?, ?)`,
        )
        .run(ids[1], NOW - 60_000, ME, ids[1], NOW - 30_000, ME)
      store.patchRecords(ids[4]!, {renamed: 'a name I gave it'})
      store
        .q(
          `INSERT INTO spawns (id, session_id, agent, depth, cwd, prompt, mode, target, pid, spawned_at, spawned_by, status)
           VALUES ('s1', ?, 'claude_code', 0, '/src', 'go', 'tmux', 'tmux %7', 4242, ?, ?, 'started')`,
        )
        .run(ids[5], NOW, ME)
      store
        .q(`UPDATE sessions SET facts = json_set(facts, '$.process', json('{"alive":true,"pid":4242,"exited":null}')) WHERE id = ?`)
        .run(ids[5])
      for (const who of ['zed@example.com', ME, 'ana@example.com']) addOwner(store, ids[6]!, who, ME, NOW)
      store.q(`UPDATE sessions SET facts = json_remove(facts, '$.backgroundWork', '$.model') WHERE id = ?`).run(ids[7])
    })
    store.reconcile(NOW, ids)
    // Held (a reconcile would release it: the other session has settled).
    store
      .q(`INSERT INTO parks (session_id, until_id, note, made_at, seen_at, after_seq) VALUES (?, ?, 'after the build', ?, ?, 0)`)
      .run(ids[2], ids[3], NOW - 120_000, NOW - 120_000)
    for (const chunk of [3, 500]) {
      const {streamed, whole} = both({all: true}, chunk)
      expect(streamed).toBe(whole)
    }

    const listed = JSON.parse(both({all: true}).streamed).sessions as {id: string; [k: string]: unknown}[]
    const byId = new Map(listed.map((s) => [s.id, s]))
    expect(byId.get(ids[1]!)?.ask).toEqual({kind: 'decision', text: 'Ship it?', tool: null})
    expect(byId.get(ids[2]!)?.park).toMatchObject({note: 'after the build', until: ids[3]})
    expect(byId.get(ids[4]!)?.title).toBe('a name I gave it')
    expect(byId.get(ids[5]!)?.pane).toBe('%7')
    expect(byId.get(ids[6]!)?.owners).toEqual(['ana@example.com', ME, 'zed@example.com'])
    expect(byId.get(ids[7]!)?.background_work).toBe(0)
    expect(byId.get(ids[0]!)?.children).toEqual([ids[8], ids[9]])
  })
})

describe('cast sessions (the inbox), from the rows that can be in it', () => {
  it('lists exactly what the full read lists, and counts the older rows the same, at any age of the store', () => {
    index(4)
    const ids = store.loadSessions().map((r) => r.id)
    store.tx(() => {
      addOwner(store, ids[1]!, ME, ME, NOW)
      addOwner(store, ids[2]!, 'ana@example.com', ME, NOW)
      addOwner(store, ids[3]!, ME.toUpperCase(), ME, NOW)
    })
    store.reconcile(NOW, ids)
    let older = 0
    for (const age of [0, 3, 8, 30, 400]) {
      const now = NOW + age * 86_400_000
      const f = {recencyMs: 7 * 86_400_000}
      const lean = inboxListing(store, ME, now, f, [])
      const whole = buildListing(store.loadSessions(), ME, now, f)
      expect(JSON.stringify(lean?.listing)).toBe(JSON.stringify(whole.listing))
      expect(lean?.rows.map((r) => r.id)).toEqual(whole.rows.map((r) => r.id))
      older = Math.max(older, whole.listing.older_hidden)
    }

    // The ages above moved sessions out of the window: the count was exercised.
    expect(older).toBeGreaterThan(0)
  })

  it('counts no older rows someone else runs, and leaves filtered listings to the full read', () => {
    index(2, 'ana@example.com')
    const now = NOW + 30 * 86_400_000
    const lean = inboxListing(store, ME, now, {}, [])
    const whole = buildListing(store.loadSessions(), ME, now, {})
    expect(JSON.stringify(lean?.listing)).toBe(JSON.stringify(whole.listing))
    expect(inboxListing(store, ME, now, {agent: ['codex']}, [])).toBeNull()
    expect(inboxListing(store, ME, now, {all: true}, [])).toBeNull()
  })
})
