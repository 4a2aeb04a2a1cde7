/**
 * Recent first (issue 16 point 1): a pass with a DeferRule reads the files that can be in the
 * inbox and leaves the others unread and unrecorded for a later full pass. On real Claude Code
 * 2.1.328 transcripts: a recent session reads exactly as after a full sync, a subagent's file goes
 * with its parent, a session with cast's records is read however old, and the full pass after it
 * leaves the store as a full sync from scratch does.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {ADAPTERS} from '../../../src/adapters/index.js'
import {type DeferRule, Ingester} from '../../../src/core/ingest/engine.js'
import {tailAsks, tailFiles} from '../../../src/core/ingest/tail-ask.js'
import {sessionsWithRecords} from '../../../src/core/store/recent-first.js'
import {Store} from '../../../src/core/store/store.js'

const REAL = path.join(import.meta.dirname, '..', '..', 'fixtures', 'claude-code', 'real-2.1.328')
const QUESTION = '76890e24-14aa-4d4f-8608-cdd0a9338e07'
const APPROVAL = '1943f1a1-7b3d-4ae1-bce8-f720230e3b92'
const PARENT = '089dca1e-c736-47ba-98b5-f68d60bdbe3b'
const AGENT = 'a410a2495beb61ba0'
const DAY = 86_400_000
const NOW = Date.parse('2026-12-01T12:00:00Z')

let dir: string
const stores: Store[] = []

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-recent-first-'))
})
afterEach(() => {
  for (const s of stores.splice(0)) s.close()
  fs.rmSync(dir, {force: true, recursive: true})
})

function project(home: string, cwd: string): string {
  return path.join(home, '.claude', 'projects', cwd.replace(/[^a-zA-Z0-9-]/g, '-'))
}

/** Copy a real transcript into HOME under its own session id, modified `ageMs` before NOW. */
function place(home: string, fixture: string, rel: string, ageMs: number): string {
  const file = path.join(project(home, '/src/app'), rel)
  fs.mkdirSync(path.dirname(file), {recursive: true})
  fs.copyFileSync(path.join(REAL, fixture), file)
  const at = new Date(NOW - ageMs)
  fs.utimesSync(file, at, at)
  return file
}

function history(): string {
  const home = path.join(dir, 'home')
  place(home, 'question-full.jsonl', `${QUESTION}.jsonl`, 2 * 3_600_000)
  place(home, 'approval-full.jsonl', `${APPROVAL}.jsonl`, 30 * DAY)
  place(home, 'subagent-full.jsonl', `${PARENT}.jsonl`, 3_600_000)
  place(home, `subagent/agent-${AGENT}.jsonl`, `${PARENT}/subagents/agent-${AGENT}.jsonl`, 20 * DAY)
  place(home, `subagent/agent-${AGENT}.meta.json`, `${PARENT}/subagents/agent-${AGENT}.meta.json`, 20 * DAY)
  return home
}

/**
 * The question's transcript as Claude Code 2.1.328 left it when it exited on the open question
 * (the real one up to the AskUserQuestion call and the lines it writes after it, and its
 * cost-state line at exit), and old: a recent-first pass reads only its tail.
 */
function leftOnQuestion(home: string): string {
  const file = place(home, 'question-full.jsonl', `${QUESTION}.jsonl`, 30 * DAY)
  const lines = fs.readFileSync(file, 'utf8').split('\n')
  expect(lines[19]).toContain('"name":"AskUserQuestion"')
  fs.writeFileSync(file, [...lines.slice(0, 24), lines[33], ''].join('\n'))
  fs.utimesSync(file, new Date(NOW - 30 * DAY), new Date(NOW - 30 * DAY))
  return file
}

function ingester(name: string, home: string): {store: Store; ingester: Ingester} {
  const store = new Store(path.join(dir, name))
  stores.push(store)
  return {
    ingester: new Ingester(store, ADAPTERS, {env: {HOME: home}, home}, {clock: () => NOW, device: 'box', me: 'me@example.com'}),
    store,
  }
}

const rule = (keep: ReadonlySet<string> = new Set(), minBytes = 0): DeferRule => ({keep, minBytes, olderThan: NOW - 7 * DAY})
/** What a user sees of a session, and every fact cast holds about it. */
const view = (store: Store, nativeId: string) => {
  const r = store.loadSessions().find((s) => s.nativeId === nativeId)
  return r && {bucket: r.bucket, childIds: r.childIds, facts: r.facts, reason: r.reason, state: r.state}
}

describe('recent first', () => {
  it('reads the recent sessions exactly as a full sync does, and leaves the old file unread and unrecorded', () => {
    const home = history()
    const quick = ingester('quick', home)
    const full = ingester('full', home)

    const stats = quick.ingester.sync(undefined, {defer: rule()})
    full.ingester.sync()

    expect(stats.deferred).toBe(1)
    expect(stats.deferredBytes).toBe(fs.statSync(path.join(REAL, 'approval-full.jsonl')).size)
    expect(quick.store.loadFiles().has(path.join(project(home, '/src/app'), `${APPROVAL}.jsonl`))).toBe(false)
    expect(view(quick.store, APPROVAL)).toBeUndefined()
    expect(view(full.store, APPROVAL)).toBeDefined()
    expect(
      full.store
        .loadSessions()
        .map((s) => s.nativeId)
        .sort(),
    ).toEqual([APPROVAL, PARENT, `${PARENT}/agent-${AGENT}`, QUESTION].sort())
    for (const id of [QUESTION, PARENT, `${PARENT}/agent-${AGENT}`]) {
      expect(view(quick.store, id)).toBeDefined()
      expect(view(quick.store, id)).toEqual(view(full.store, id))
    }
  })

  it('the full pass after it leaves the store as a full sync from scratch', () => {
    const home = history()
    const quick = ingester('quick', home)
    const full = ingester('full', home)

    quick.ingester.sync(undefined, {defer: rule()})
    const rest = quick.ingester.sync()
    full.ingester.sync()

    expect(rest.read).toBe(1)
    const ids = (s: Store) =>
      s
        .loadSessions()
        .map((r) => r.nativeId)
        .sort()
    expect(ids(quick.store)).toEqual(ids(full.store))
    for (const id of ids(full.store)) expect(view(quick.store, id)).toEqual(view(full.store, id))
  })

  it('reads an old file of a session that carries cast records (a pin)', () => {
    const home = history()
    const first = ingester('cast', home)
    first.ingester.sync()
    const id = first.store.loadSessions().find((s) => s.nativeId === APPROVAL)!.id
    first.store.tx(() => first.store.patchRecords(id, {pinned: true}))
    // The file is replaced (a new inode): a pass must read it again, old as it is.
    const file = path.join(project(home, '/src/app'), `${APPROVAL}.jsonl`)
    fs.copyFileSync(file, `${file}.new`)
    fs.renameSync(`${file}.new`, file)
    fs.utimesSync(file, new Date(NOW - 30 * DAY), new Date(NOW - 30 * DAY))

    const keep = sessionsWithRecords(first.store)
    const stats = first.ingester.sync(undefined, {defer: rule(keep)})

    expect(keep.has(`claude_code\0${APPROVAL}`)).toBe(true)
    expect(stats.deferred).toBe(0)
    expect(stats.read).toBe(1)
  })

  it('defers nothing when the old files hold fewer bytes than the rule asks', () => {
    const home = history()
    const quick = ingester('quick', home)

    const stats = quick.ingester.sync(undefined, {defer: rule(new Set(), 1 << 30)})

    expect(stats.deferred).toBe(0)
    expect(view(quick.store, APPROVAL)).toBeDefined()
  })

  it("shows an old session whose file ends on an open question in the first answer, from the file's tail, and the full pass reads the file whole", () => {
    const home = history()
    const file = leftOnQuestion(home)
    const quick = ingester('quick', home)
    const full = ingester('full', home)

    const stats = quick.ingester.sync(undefined, {defer: rule()})
    full.ingester.sync()

    expect(stats.deferred).toBe(2)
    const first = view(quick.store, QUESTION)
    expect(first).toMatchObject({reason: 'question', state: 'needs_input'})
    expect(first?.facts.question?.text).toBe(view(full.store, QUESTION)?.facts.question?.text)
    expect(view(full.store, QUESTION)).toMatchObject({reason: 'question', state: 'needs_input'})
    // Marked unread: the full pass reads it from its start.
    expect(quick.store.loadFiles().get(file)).toMatchObject({mtimeMs: -1, offset: 0, state: null})
    expect(view(quick.store, APPROVAL)).toBeUndefined()

    const rest = quick.ingester.sync()
    expect(rest.read).toBe(2)
    expect(quick.store.loadFiles().get(file)?.offset).toBe(fs.statSync(file).size)
    expect(view(quick.store, QUESTION)).toEqual(view(full.store, QUESTION))
  })

  it('finds an open question whose line starts long before the last 16 KB: the first look grows to the line holding the tool name', () => {
    const home = history()
    const file = leftOnQuestion(home)
    const lines = fs.readFileSync(file, 'utf8').split('\n')
    const at = 19
    expect(lines[at]).toContain('"name":"AskUserQuestion","type":"tool_use"')
    const ask = JSON.parse(lines[at]!) as {message: {content: {input: {questions: {options: {description: string}[]}[]}}[]}}
    // A long option description: the input comes before the tool's name in the line, 20 KB of it.
    ask.message.content[0]!.input.questions[0]!.options[0]!.description = 'a long description '.repeat(1100)
    lines[at] = JSON.stringify(ask)
    fs.writeFileSync(file, lines.join('\n'))
    fs.utimesSync(file, new Date(NOW - 30 * DAY), new Date(NOW - 30 * DAY))
    expect(fs.statSync(file).size - fs.readFileSync(file, 'utf8').indexOf(lines[at]!)).toBeGreaterThan(16 * 1024)
    const quick = ingester('quick', home)
    const full = ingester('full', home)

    quick.ingester.sync(undefined, {defer: rule()})
    full.ingester.sync()

    expect(view(full.store, QUESTION)).toMatchObject({reason: 'question', state: 'needs_input'})
    expect(view(quick.store, QUESTION)).toMatchObject({reason: 'question', state: 'needs_input'})
    expect(view(quick.store, QUESTION)?.facts.question).toEqual(view(full.store, QUESTION)?.facts.question)
  })

  it('reads no tail of an agent whose files never end on an ask they show (Codex), and the others newest first', () => {
    const home = history()
    const file = leftOnQuestion(home)
    const found = ingester('quick', home).ingester.discover()
    const codex = ADAPTERS.find((a) => a.agent === 'codex')!
    const rollout = {adapter: codex, match: {kind: 'jsonl' as const, nativeId: 'rollout'}, path: file}
    const all = [...found, rollout]
    const sts = all.map((d) => fs.statSync(d.path))
    const waiting = new Set(all.flatMap((d, i) => (d.path === file || d === rollout ? [i] : [])))

    expect(tailFiles(all, sts, waiting).map((t) => `${t.job.agent} ${t.job.path}`)).toEqual([`claude_code ${file}`])
  })

  it('looks at no tail past its time budget: the file waits for the full pass, as every unread file did', () => {
    const home = history()
    const file = leftOnQuestion(home)
    const quick = ingester('quick', home)
    const found = quick.ingester.discover()
    const sts = found.map((d) => fs.statSync(d.path))
    const waiting = new Set([found.findIndex((d) => d.path === file)])

    expect(tailAsks(found, sts, waiting).map((t) => t.path)).toEqual([file])
    expect(tailAsks(found, sts, waiting, -1)).toEqual([])
  })
})
