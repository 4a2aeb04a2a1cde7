/**
 * Tying a process to the session it shows through a file every process of the agent holds open
 * (src/core/ingest/pane-tie.ts, a contribution's `heldAt`): OpenCode's one database names no
 * session, and its one log names a session through where each process's O_APPEND descriptor
 * stands (the end of the last line that process wrote, which names its run). Real processes hold
 * the real files; the store is filled by the real engine with the OpenCode adapter.
 */
import {type ChildProcess, spawn} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {clearOpencodeCache, opencode} from '../../../src/adapters/opencode/index.js'
import {Ingester} from '../../../src/core/ingest/engine.js'
import {type AgentPane, tiePane} from '../../../src/core/ingest/pane-tie.js'
import {scanSessions} from '../../../src/core/ingest/process-scan.js'
import {processStartTime} from '../../../src/core/ingest/process-table.js'
import {Store} from '../../../src/core/store/store.js'

let dir: string
let data: string
let log: string
let store: Store
let ingester: Ingester
const children: ChildProcess[] = []

const OLD = 'ses_0ldrun0000000000000000aa'
const TUI = 'ses_tu10000000000000000000bb'
const CHILD = 'ses_ch1d000000000000000000cc'
const NEXT = 'ses_next000000000000000000dd'

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-held-'))
  data = path.join(dir, 'data')
  fs.mkdirSync(path.join(data, 'opencode', 'log'), {recursive: true})
  log = path.join(data, 'opencode', 'log', 'opencode.log')
  fs.writeFileSync(log, '')
  store = new Store(path.join(dir, 'cast'))
  ingester = new Ingester(
    store,
    [opencode],
    {env: {XDG_DATA_HOME: data}, home: dir},
    {clock: () => Date.now(), device: 'box', me: 'me@example.com'},
  )
})

afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL')
  store.close()
  clearOpencodeCache()
  fs.rmSync(dir, {force: true, recursive: true})
})

const line = (run: string, rest: string): string => `timestamp=${new Date().toISOString()} level=INFO run=${run} ${rest}\n`

/**
 * A process that opens `file` for appending (as OpenCode opens its log), writes `text` through
 * that descriptor, then keeps it open. Resolves once the text is in the file.
 */
async function holder(file: string, text: string): Promise<ChildProcess> {
  const before = fs.statSync(file).size
  const child = spawn('/bin/sh', ['-c', 'exec 3>>"$1"; printf %s "$2" >&3; exec sleep 300', 'sh', file, text], {cwd: dir, stdio: 'ignore'})
  children.push(child)
  const end = Date.now() + 10_000
  while (fs.statSync(file).size < before + Buffer.byteLength(text)) {
    if (Date.now() > end) throw new Error('the holder never wrote')
    await new Promise((r) => setTimeout(r, 20))
  }

  // `exec sleep` keeps the descriptor: wait until the process image is sleep's.
  while (fs.readFileSync(`/proc/${child.pid}/comm`, 'utf8').trim() !== 'sleep') {
    if (Date.now() > end) throw new Error('the holder never slept')
    await new Promise((r) => setTimeout(r, 20))
  }

  return child
}

function pane(pid: number): AgentPane {
  return {agent: 'opencode', cwd: null, pane: {id: '%1'} as AgentPane['pane'], pid, pids: new Set([pid]), startedAt: processStartTime(pid)}
}

const tie = (pid: number) => tiePane(store, pane(pid), new Map([['sleep', 'opencode']]))

/** OpenCode's database with the given top-level sessions (the columns the adapter reads). */
function database(ids: readonly string[]): string {
  const file = path.join(data, 'opencode', 'opencode.db')
  const db = new Database(file)
  db.exec(`CREATE TABLE IF NOT EXISTS session (id TEXT PRIMARY KEY, parent_id TEXT, directory TEXT, title TEXT, version TEXT,
    time_created INTEGER, time_updated INTEGER, time_compacting INTEGER, time_archived INTEGER)`)
  const now = Date.now()
  for (const id of ids)
    db.prepare('INSERT OR IGNORE INTO session VALUES (?, NULL, ?, ?, ?, ?, ?, NULL, NULL)').run(id, dir, id, '1.18.33', now, now)
  db.close()
  return file
}

describe('a pane tied through a file every process holds', () => {
  it('the shared database ties no process to a session, even with one session in it', async () => {
    const db = database([OLD])
    const p = await holder(db, '')
    ingester.sync()
    expect(store.loadSessions().map((s) => s.nativeId)).toEqual([OLD])
    expect(tie(p.pid!)).toBeNull()
  })

  it('the log: each process is tied to the session its own run named last, by where its descriptor stands', async () => {
    // The database names both sessions (a log line alone makes no session).
    database([OLD, TUI])
    // The older `opencode run`: created its session, answered, and wrote its last lines.
    const older = await holder(
      log,
      line('aaaa1111', `message=created id=${OLD} directory=${dir} parentID=undefined`) +
        line('aaaa1111', `message=loop session.id=${OLD} step=0`),
    )
    // The TUI, started later: booted (a line naming no session), then created its own session.
    const tui = await holder(log, line('bbbb2222', 'message="creating instance"'))
    ingester.sync()
    // At its prompt, before its first session: tied to nothing (not to the older one).
    expect(tie(tui.pid!)).toBeNull()
    expect(tie(older.pid!)).toEqual({nativeId: OLD, via: 'pid'})

    // Its own lines go through its own descriptor: the runs interleave in the one file.
    const tui2 = await holder(
      log,
      line('bbbb2222', `message=created id=${TUI} directory=${dir} parentID=undefined`) + line('bbbb2222', 'message="watcher backend"'),
    )
    ingester.sync()
    expect(tie(tui2.pid!)).toEqual({nativeId: TUI, via: 'pid'})
    // A process whose last line the engine has not read yet is tied to nothing, never to another.
    const unread = await holder(log, line('bbbb2222', `message=loop session.id=${TUI} step=1`))
    expect(tie(unread.pid!)).toBeNull()
    expect(tie(older.pid!)).toEqual({nativeId: OLD, via: 'pid'})
  })

  it("a subagent's lines keep its run on the parent session", async () => {
    database([TUI])
    const run = await holder(
      log,
      line('cccc3333', `message=created id=${TUI} directory=${dir} parentID=undefined`) +
        line('cccc3333', `message=created id=${CHILD} directory=${dir} parentID=${TUI}`) +
        line('cccc3333', `message=loop session.id=${CHILD} step=0`),
    )
    ingester.sync()
    expect(tie(run.pid!)).toEqual({nativeId: TUI, via: 'pid'})
  })

  it('the process scan marks a session live only through the process its log position names', async () => {
    database([OLD])
    fs.appendFileSync(log, line('aaaa1111', `message=created id=${OLD} directory=${dir} parentID=undefined`))
    // A fresh TUI in the same folder, started right after the older session's last activity.
    const fresh = await holder(log, line('bbbb2222', 'message="creating instance"'))
    const scan = () => {
      ingester.sync()
      scanSessions(store, ingester, {agents: new Set(['opencode']), names: new Map([['sleep', 'opencode']]), now: Date.now(), tied: []})
      return new Map(store.loadSessions().map((r) => [r.nativeId, r.facts.process?.alive === true ? r.facts.process.pid : null]))
    }

    expect(scan().get(OLD)).toBeNull()
    // Its first session: that one is the process's, the older one still nobody's.
    database([TUI])
    const shows = await holder(log, line('bbbb2222', `message=created id=${TUI} directory=${dir} parentID=undefined`))
    const live = scan()
    expect(live.get(TUI)).toBe(shows.pid)
    expect(live.get(OLD)).toBeNull()
    expect(fresh.pid).not.toBe(shows.pid)
  })

  it('a TUI that moved to a new session no longer keeps the one it showed before live', async () => {
    database([TUI, NEXT])
    // One process that writes, waits, then writes again through the same descriptor (comm `sh`).
    const go = path.join(dir, 'go')
    const first = line('dddd4444', `message=created id=${TUI} directory=${dir} parentID=undefined`)
    const then = line('dddd4444', `message=created id=${NEXT} directory=${dir} parentID=undefined`)
    const script =
      'exec 3>>"$1"; printf %s "$2" >&3; while [ ! -e "$3" ]; do sleep 0.05; done; printf %s "$4" >&3; while :; do sleep 1; done'
    const p = spawn('/bin/sh', ['-c', script, 'sh', log, first, go, then], {cwd: dir, stdio: 'ignore'})
    children.push(p)
    const size = (n: number) => fs.statSync(log).size >= n
    const wait = async (ok: () => boolean) => {
      for (const end = Date.now() + 10_000; !ok(); await new Promise((r) => setTimeout(r, 20)))
        if (Date.now() > end) throw new Error('timed out')
    }

    const scan = () => {
      ingester.sync()
      scanSessions(store, ingester, {agents: new Set(['opencode']), names: new Map([['sh', 'opencode']]), now: Date.now(), tied: []})
      return new Map(store.loadSessions().map((r) => [r.nativeId, r.facts.process?.alive === true ? r.facts.process.pid : null]))
    }

    await wait(() => size(Buffer.byteLength(first)))
    expect(scan().get(TUI)).toBe(p.pid)
    fs.writeFileSync(go, '')
    await wait(() => size(Buffer.byteLength(first + then)))
    const after = scan()
    expect(after.get(NEXT)).toBe(p.pid)
    expect(after.get(TUI)).toBeNull()
  })
})
