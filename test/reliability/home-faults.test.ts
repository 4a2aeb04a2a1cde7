/**
 * A CAST_HOME that cannot be written: read-only (a read-only bind mount when root, else mode
 * bits) or full (a tiny tmpfs, when this process may mount one). Each gives a clear one-line
 * error and a non-zero exit, corrupts nothing, and the next run after the fault is cleared
 * recovers with the same data.
 */
import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {waitFor} from '../fakes/agents.js'
import {claudeLines, claudeTranscriptPath, json, makeHome, runCast, type TempHome, waitForWatcher, writeFile} from '../helpers/cli.js'
import {fireHook, killChildren, sleep, spawnCast, transitionsProblems, withDb} from './helpers.js'

const isRoot = process.getuid?.() === 0
const mounts: string[] = []

function mount(args: readonly string[]): boolean {
  try {
    execFileSync('mount', args, {stdio: 'pipe'})
    return true
  } catch {
    return false
  }
}

function unmountAll(): void {
  for (const m of mounts.reverse()) {
    try {
      execFileSync('umount', ['-l', m], {stdio: 'pipe'})
    } catch {
      // already gone
    }
  }

  mounts.length = 0
}

/** Everything a user could lose: sessions with their state, records, owners, the log. */
function dump(castHome: string): unknown {
  return withDb(castHome, (db) => ({
    integrity: db.pragma('integrity_check', {simple: true}),
    owners: db.prepare('SELECT * FROM owners ORDER BY session_id, who').all(),
    records: db.prepare('SELECT * FROM records ORDER BY session_id').all(),
    sessions: db.prepare('SELECT id, facts, state, reason, bucket FROM sessions ORDER BY id').all(),
    transitions: db.prepare('SELECT * FROM transitions ORDER BY seq').all(),
  }))
}

const sid = (i: number): string => `fa017000-0000-4000-8000-${String(i).padStart(12, '0')}`

let h: TempHome
beforeEach(() => {
  h = makeHome()
})
afterEach(async () => {
  await killChildren()
  unmountAll()
  h.cleanup()
})

const oneLine = (s: string): boolean => s.trim() !== '' && s.trim().split('\n').length <= 3 && !/\n\s+at /.test(s)

describe('a read-only CAST_HOME', () => {
  it('reading shows the stored inbox marked stale (sessions, status, explain); a write fails with one clear line; writable again, the next run recovers', async (ctx) => {
    const now = Date.now()
    for (let i = 0; i < 3; i++)
      writeFile(
        claudeTranscriptPath(h.home, '/src/app', sid(i)),
        claudeLines({at: new Date(now - 60_000), cwd: '/src/app', prompt: `Task ${i}`, sessionId: sid(i)}),
      )
    const first = json(await runCast(['sessions', '--json', '--all'], {env: h.env}))
    const id = first.sessions[0].id as string
    expect((await runCast(['pin', id], {env: h.env})).code).toBe(0)
    expect((await runCast(['own', id, 'bob@example.com'], {env: h.env})).code).toBe(0)
    const before = dump(h.castHome)
    // New work arrives while the store cannot be written.
    writeFile(
      claudeTranscriptPath(h.home, '/src/app', sid(9)),
      claudeLines({at: new Date(now - 30_000), cwd: '/src/app', prompt: 'Arrived while read-only', sessionId: sid(9)}),
    )

    let how: string
    if (isRoot) {
      // Mode bits do not stop root: a read-only bind mount does.
      if (!mount(['--bind', h.castHome, h.castHome])) {
        console.log(
          '[reliability] read-only CAST_HOME: skipped (running as root without the right to mount: mode bits would not stop root)',
        )
        ctx.skip()
        return
      }

      mounts.push(h.castHome)
      expect(mount(['-o', 'remount,bind,ro', h.castHome])).toBe(true)
      how = 'read-only bind mount'
    } else {
      for (const f of fs.readdirSync(h.castHome)) fs.chmodSync(path.join(h.castHome, f), 0o400)
      fs.chmodSync(h.castHome, 0o500)
      how = 'mode 0500'
    }

    const listing = await runCast(['sessions', '--all'], {env: h.env})
    const pin = await runCast(['unpin', id], {env: h.env})
    const stored = await runCast(['sessions', '--json', '--all'], {env: h.env})
    const status = await runCast(['status', '--json'], {env: h.env})
    const explain = await runCast(['explain', id, '--json'], {env: h.env})
    const hook = await fireHook('claude_code', JSON.stringify({hook_event_name: 'Stop', session_id: sid(0)}), h.env)
    console.log(`[reliability] read-only CAST_HOME (${how}): sessions -> ${listing.code}: ${listing.stderr.trim()}`)

    // Reading never needs write access: the stored inbox, marked stale (one line; JSON stale: true).
    expect(listing.code, listing.stderr).toBe(0)
    expect(listing.stderr.trim()).toBe(`cast: CAST_HOME ${h.castHome} is read-only: this is the stored inbox, not synced (stale).`)
    expect(listing.stdout).toContain('Task 1')
    expect(listing.stdout).not.toContain('Arrived while read-only')
    expect(stored.code).toBe(0)
    expect(json(stored)).toMatchObject({stale: true})
    expect(
      json(stored)
        .sessions.map((x: {native_id: string}) => x.native_id)
        .sort(),
    ).toEqual([sid(1), sid(2)])
    expect(json(status)).toMatchObject({stale: true})
    expect(json(status).line).toMatch(/\(stale\)$/)
    expect(explain.code, explain.stderr).toBe(0)
    expect(json(explain)).toMatchObject({session: {id}, stale: true})
    // Writing still refuses with its clear line.
    expect(pin.code).not.toBe(0)
    expect(oneLine(pin.stderr), pin.stderr).toBe(true)
    expect(pin.stderr).toMatch(/read-only|readonly|permission|not writable/i)
    expect(pin.stderr).toContain(h.castHome)
    // The hook never blocks or fails the agent, even when it cannot write.
    expect(hook).toMatchObject({code: 0, stderr: ''})

    unmountAll()
    fs.chmodSync(h.castHome, 0o700)
    for (const f of fs.readdirSync(h.castHome)) fs.chmodSync(path.join(h.castHome, f), 0o600)
    expect(dump(h.castHome)).toEqual(before)
    const after = await runCast(['sessions', '--json', '--all'], {env: h.env})

    expect(after.code, after.stderr).toBe(0)
    withDb(h.castHome, (db) => {
      expect(
        (db.prepare('SELECT native_id FROM sessions ORDER BY native_id').all() as {native_id: string}[]).map((s) => s.native_id),
      ).toEqual([sid(0), sid(1), sid(2), sid(9)])
      expect(db.prepare('SELECT pinned FROM records WHERE session_id = ?').get(id)).toEqual({pinned: 1})
      expect(db.prepare('SELECT who FROM owners WHERE session_id = ?').all(id)).toEqual([{who: 'bob@example.com'}])
      expect(transitionsProblems(db)).toEqual([])
    })
  }, 60_000)
})

describe('a full CAST_HOME', () => {
  it('a sync fails with one clear line; with space again the next run recovers with the same data as a clean index', async (ctx) => {
    const disk = path.join(h.dir, 'disk')
    fs.mkdirSync(disk)
    if (!isRoot || !mount(['-t', 'tmpfs', '-o', 'size=16m,mode=0700', 'tmpfs', disk])) {
      console.log('[reliability] full CAST_HOME: skipped (cannot mount a tmpfs here: needs root or CAP_SYS_ADMIN)')
      ctx.skip()
      return
    }

    mounts.push(disk)
    const env = {...h.env, CAST_HOME: path.join(disk, 'cast')}
    const now = Date.now()
    for (let i = 0; i < 3; i++)
      writeFile(
        claudeTranscriptPath(h.home, '/src/app', sid(i)),
        claudeLines({at: new Date(now - 60_000), cwd: '/src/app', prompt: `Task ${i}`, sessionId: sid(i)}),
      )
    expect((await runCast(['daemon', '--once'], {env})).code).toBe(0)
    const id = json(await runCast(['sessions', '--json', '--all'], {env})).sessions[0].id as string
    expect((await runCast(['pin', id], {env})).code).toBe(0)
    const before = dump(env.CAST_HOME)

    // Much more to index than there is room for, then not a byte left.
    for (let i = 10; i < 110; i++) {
      writeFile(
        claudeTranscriptPath(h.home, '/src/app', sid(i)),
        claudeLines({at: new Date(now - 30_000), cwd: '/src/app', prompt: `Later task ${i} ${'x'.repeat(3000)}`, sessionId: sid(i)}),
      )
    }

    const filler = path.join(disk, 'filler')
    const fd = fs.openSync(filler, 'w')
    try {
      for (;;) fs.writeSync(fd, Buffer.alloc(64 * 1024))
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC')
    } finally {
      fs.closeSync(fd)
    }

    const sync = await runCast(['daemon', '--once'], {env})
    const listing = await runCast(['sessions'], {env})
    const hook = await fireHook('claude_code', JSON.stringify({hook_event_name: 'Stop', session_id: sid(0)}), env)
    console.log(`[reliability] full CAST_HOME: daemon --once -> ${sync.code}: ${sync.stderr.trim()}`)

    expect(sync.code).not.toBe(0)
    expect(oneLine(sync.stderr), sync.stderr).toBe(true)
    expect(sync.stderr).toMatch(/full|space/i)
    expect(listing.code).not.toBe(0)
    expect(oneLine(listing.stderr), listing.stderr).toBe(true)
    expect(hook).toMatchObject({code: 0, stderr: ''})
    expect(fs.readdirSync(path.join(env.CAST_HOME, 'spool')).filter((n) => n.startsWith('.tmp'))).toEqual([])

    fs.rmSync(filler)
    expect(dump(env.CAST_HOME)).toEqual(before)
    const again = await runCast(['daemon', '--once'], {env})
    expect(again.code, again.stderr).toBe(0)
    const got = dump(env.CAST_HOME) as any
    const clean = {...h.env, CAST_HOME: path.join(h.dir, 'clean')}
    expect((await runCast(['daemon', '--once'], {env: clean})).code).toBe(0)
    const want = dump(clean.CAST_HOME) as any

    expect(got.integrity).toBe('ok')
    expect(got.sessions).toEqual(want.sessions.map((s: any) => (s.id === id ? got.sessions.find((g: any) => g.id === id) : s)))
    expect(got.records).toEqual((before as any).records)
    withDb(env.CAST_HOME, (db) => expect(transitionsProblems(db)).toEqual([]))
  }, 120_000)

  it('a running daemon survives the disk filling up: one line per streak, no crash, and it catches up once there is space', async (ctx) => {
    const disk = path.join(h.dir, 'disk')
    fs.mkdirSync(disk)
    if (!isRoot || !mount(['-t', 'tmpfs', '-o', 'size=16m,mode=0700', 'tmpfs', disk])) {
      console.log('[reliability] full CAST_HOME under a daemon: skipped (cannot mount a tmpfs here)')
      ctx.skip()
      return
    }

    mounts.push(disk)
    const env = {...h.env, CAST_HOME: path.join(disk, 'cast')}
    const now = Date.now()
    writeFile(
      claudeTranscriptPath(h.home, '/src/app', sid(0)),
      claudeLines({at: new Date(now - 60_000), cwd: '/src/app', prompt: 'Before', sessionId: sid(0)}),
    )
    const daemon = spawnCast(['daemon'], env)
    await waitForWatcher(env.CAST_HOME)
    let err = ''
    daemon.stderr!.on('data', (c) => (err += String(c)))

    const filler = path.join(disk, 'filler')
    const fd = fs.openSync(filler, 'w')
    try {
      for (;;) fs.writeSync(fd, Buffer.alloc(64 * 1024))
    } catch {
      // full
    } finally {
      fs.closeSync(fd)
    }

    for (let i = 10; i < 60; i++)
      writeFile(
        claudeTranscriptPath(h.home, '/src/app', sid(i)),
        claudeLines({at: new Date(now - 30_000), cwd: '/src/app', prompt: `During ${i} ${'x'.repeat(3000)}`, sessionId: sid(i)}),
      )
    await fireHook('claude_code', JSON.stringify({hook_event_name: 'UserPromptSubmit', session_id: sid(0)}), env)
    await waitFor(() => /failed: .*full/.test(err) || null)
    await sleep(4500)

    expect(daemon.exitCode).toBe(null)
    expect(err).not.toMatch(/\n\s+at |SqliteError|Node\.js v/)
    expect(err.split('\n').filter((l) => /sync failed/.test(l)).length).toBe(1)

    fs.rmSync(filler)
    // Nothing else changes on disk: the daemon retries by itself.
    await waitFor(() => /sync recovered/.test(err) || null)
    await waitFor(() =>
      withDb(env.CAST_HOME, (db) => (db.prepare('SELECT COUNT(*) AS n FROM sessions').get() as {n: number}).n) === 51 ? true : null,
    )
    await waitFor(() => (fs.readdirSync(path.join(env.CAST_HOME, 'spool')).filter((n) => !n.startsWith('.')).length === 0 ? true : null))
    daemon.kill('SIGTERM')
    expect((await daemon.done).code).toBe(0)
    withDb(env.CAST_HOME, (db) => {
      expect(db.pragma('integrity_check', {simple: true})).toBe('ok')
      expect(transitionsProblems(db)).toEqual([])
    })
    console.log(`[reliability] daemon on a full disk: ${err.trim().split('\n').join(' | ')}`)
  }, 120_000)
})
