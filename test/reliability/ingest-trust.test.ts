/**
 * The ingester hangs on nothing and trusts nothing it should not; faults say the truth
 * (issue 11 points 4–6). Hostile inputs are real: FIFOs, symlinks and loops, huge and foreign
 * files in the spool, a second uid (setpriv, as root), a stopped daemon whose lease is taken over,
 * a lease and a spool stamp from the future, a full tmpfs, a store corrupted on purpose.
 */
import Database from 'better-sqlite3'
import {execFileSync, spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import {
  BIN,
  claudeLines,
  claudeTranscriptPath,
  HOOK_BIN,
  json,
  makeHome,
  runCast,
  type TempHome,
  waitForWatcher,
  writeFile,
} from '../helpers/cli.js'
import {fireHook, killChildren, sleep, spawnCast, withDb} from './helpers.js'

const isRoot = process.getuid?.() === 0
const NOBODY = 65_534
const canSetpriv =
  isRoot &&
  (() => {
    try {
      execFileSync('setpriv', ['--reuid', String(NOBODY), '--regid', String(NOBODY), '--clear-groups', 'true'], {stdio: 'pipe'})
      return true
    } catch {
      return false
    }
  })()

const homes: TempHome[] = []
const mounts: string[] = []
function home(): TempHome {
  const h = makeHome()
  homes.push(h)
  return h
}

afterAll(async () => {
  await killChildren()
  for (const m of mounts) {
    try {
      execFileSync('umount', ['-l', m], {stdio: 'pipe'})
    } catch {
      // gone
    }
  }

  for (const h of homes) {
    try {
      fs.chmodSync(h.dir, 0o700)
    } catch {
      // gone
    }

    h.cleanup()
  }
})

const sid = (i: number): string => `7c0a0000-0000-4000-8000-${String(i).padStart(12, '0')}`

/** Start time of a pid from /proc, in epoch ms (what a registry's startedAt holds). */
function startTimeOf(pid: number): number {
  const btime = Number(/^btime (\d+)/m.exec(fs.readFileSync('/proc/stat', 'utf8'))![1]) * 1000
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
  return btime + (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]) * 1000) / 100
}

function run(args: string[], h: TempHome, extra: Record<string, string> = {}, timeout = 60_000) {
  return runCast(args, {env: {...h.env, ...extra}, timeout})
}

/** Run a command as another uid (setpriv): what a second user on the machine would do. */
function asNobody(argv: string[], env: Record<string, string>, input = ''): Promise<{code: number; stdout: string; stderr: string}> {
  return new Promise((resolve) => {
    const child = spawn('setpriv', ['--reuid', String(NOBODY), '--regid', String(NOBODY), '--clear-groups', ...argv], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c) => (stdout += String(c)))
    child.stderr.on('data', (c) => (stderr += String(c)))
    child.on('close', (code) => resolve({code: code ?? -1, stderr, stdout}))
    child.stdin.end(input)
  })
}

describe('hangs on nothing', () => {
  it.concurrent(
    'spool: a FIFO, symlinks, a 5 MB file, a foreign file and a folder never block or grow the ingester; a stamp from the future is clamped to now',
    async () => {
      const h = home()
      const cwd = '/w/spool'
      writeFile(
        claudeTranscriptPath(h.home, cwd, sid(1)),
        claudeLines({at: new Date(Date.now() - 60_000), cwd, prompt: 'go', sessionId: sid(1), settled: false}),
      )
      expect((await run(['sessions', '--json'], h)).code).toBe(0)
      const spool = path.join(h.castHome, 'spool')
      fs.mkdirSync(spool, {mode: 0o700, recursive: true})
      const secret = path.join(h.dir, 'secret.json')
      fs.writeFileSync(secret, JSON.stringify({hook_event_name: 'Stop', session_id: sid(1)}))
      const stamp = `${Math.floor(Date.now() / 1000)}.000000000`
      execFileSync('mkfifo', [path.join(spool, `${stamp}.11.claude_code.json`)])
      execFileSync('mkfifo', [path.join(h.dir, 'fifo')])
      fs.symlinkSync(path.join(h.dir, 'fifo'), path.join(spool, `${stamp}.12.claude_code.json`))
      fs.symlinkSync(secret, path.join(spool, `${stamp}.13.claude_code.json`))
      fs.writeFileSync(path.join(spool, `${stamp}.14.claude_code.json`), '{"a":"' + 'x'.repeat(5 * 1024 * 1024) + '"}')
      fs.writeFileSync(path.join(spool, `${stamp}.15.claude_code.json`), JSON.stringify({hook_event_name: 'Stop', session_id: sid(1)}))
      if (isRoot) fs.chownSync(path.join(spool, `${stamp}.15.claude_code.json`), NOBODY, NOBODY)
      fs.mkdirSync(path.join(spool, `${stamp}.16.claude_code.json`))
      // A real permission request, stamped in the year 2100.
      const payload = {
        cwd,
        hook_event_name: 'PermissionRequest',
        permission_mode: 'default',
        session_id: sid(1),
        tool_input: {command: 'rm -rf build'},
        tool_name: 'Bash',
        transcript_path: claudeTranscriptPath(h.home, cwd, sid(1)),
      }
      fs.writeFileSync(path.join(spool, '4102444800.000000000.17.claude_code.json'), JSON.stringify(payload))
      const t0 = performance.now()
      const once = await run(['daemon', '--once'], h, {}, 30_000)
      const ms = performance.now() - t0
      console.log(
        `[figure] daemon --once over a FIFO, 2 symlinks, a 5 MB file, a foreign file, a folder and a future stamp: ${ms.toFixed(0)} ms`,
      )
      expect(once.code, once.stderr).toBe(0)
      // Everything but the folder is gone from the spool; the secret behind the symlink is untouched.
      expect(fs.readdirSync(spool).sort()).toEqual([`${stamp}.16.claude_code.json`])
      expect(fs.existsSync(secret)).toBe(true)
      const list = json(await run(['sessions', '--json'], h))
      const s = list.sessions.find((x: {native_id: string}) => x.native_id === sid(1))
      // Neither the symlinked Stop nor the foreign one was applied: the approval still stands.
      expect([s.state, s.reason]).toEqual(['needs_input', 'approval'])
      const waiting = Date.parse(s.waiting_since ?? s.last_activity_at)
      expect(waiting).toBeLessThanOrEqual(Date.now() + 1000)
      expect(Date.parse(s.last_activity_at)).toBeLessThanOrEqual(Date.now() + 1000)
    },
    90_000,
  )

  it.concurrent(
    'symlinks under an agent root are not followed: a loop and a duplicate link read once, the watcher stays at the real files',
    async () => {
      const h = home()
      const cwd = '/w/loop'
      const file = claudeTranscriptPath(h.home, cwd, sid(2))
      writeFile(file, claudeLines({at: new Date(Date.now() - 60_000), cwd, prompt: 'loop', sessionId: sid(2)}))
      const projects = path.dirname(path.dirname(file))
      fs.symlinkSync(projects, path.join(path.dirname(file), 'loop'))
      fs.symlinkSync(projects, path.join(projects, 'again'))
      fs.symlinkSync(file, path.join(path.dirname(file), `${sid(3)}.jsonl`))
      const list = await run(['sessions', '--json'], h, {}, 30_000)
      expect(list.code, list.stderr).toBe(0)
      expect(json(list).sessions.map((s: {native_id: string}) => s.native_id)).toEqual([sid(2)])
      const watch = spawnCast(['sessions', '-w', '--json'], h.env)
      await waitForWatcher(h.castHome)
      const info = withDb(
        h.castHome,
        (db) => JSON.parse((db.prepare(`SELECT info FROM leases WHERE name = 'ingester'`).get() as {info: string}).info) as {files: number},
      )
      expect(info.files).toBe(1)
      // Still live and reading: an append to the real file arrives.
      fs.appendFileSync(
        file,
        JSON.stringify({
          cwd,
          message: {content: 'more', role: 'user'},
          parentUuid: 'a1',
          sessionId: sid(2),
          timestamp: new Date().toISOString(),
          type: 'user',
          uuid: 'u-more',
        }) + '\n',
      )
      const deadline = Date.now() + 10_000
      let state = ''
      while (Date.now() < deadline && state !== 'working') {
        await sleep(100)
        state = withDb(h.castHome, (db) =>
          String((db.prepare('SELECT state FROM sessions WHERE native_id = ?').get(sid(2)) as {state: string}).state),
        )
      }

      expect(state).toBe('working')
      watch.kill('SIGTERM')
      await watch.done
    },
    60_000,
  )

  it.concurrent(
    'a registry without a start time is not a live process; with its start time it is',
    async () => {
      const h = home()
      const sleeper = spawn('sleep', ['300'], {stdio: 'ignore'})
      try {
        const pid = sleeper.pid!
        const cwd = '/w/reg'
        writeFile(
          claudeTranscriptPath(h.home, cwd, sid(4)),
          claudeLines({at: new Date(Date.now() - 5000), cwd, prompt: 'busy', sessionId: sid(4), settled: false}),
        )
        const reg = {
          cwd,
          entrypoint: 'cli',
          kind: 'interactive',
          pid,
          sessionId: sid(4),
          status: 'busy',
          statusUpdatedAt: Date.now(),
          updatedAt: Date.now(),
          version: '2.1.328',
        }
        const regFile = path.join(h.home, '.claude', 'sessions', `${pid}.json`)
        writeFile(regFile, JSON.stringify(reg))
        const without = json(await run(['sessions', '--json'], h)).sessions.find((s: {native_id: string}) => s.native_id === sid(4))
        expect(without.live).toBe(false)
        writeFile(regFile, JSON.stringify({...reg, startedAt: startTimeOf(pid)}))
        const withStart = json(await run(['sessions', '--json'], h)).sessions.find((s: {native_id: string}) => s.native_id === sid(4))
        expect(withStart.live).toBe(true)
        // A start time that is not this process's (pid reuse) is not it either.
        writeFile(regFile, JSON.stringify({...reg, startedAt: startTimeOf(pid) - 3_600_000}))
        const reused = json(await run(['sessions', '--json'], h)).sessions.find((s: {native_id: string}) => s.native_id === sid(4))
        expect(reused.live).toBe(false)
      } finally {
        sleeper.kill('SIGKILL')
      }
    },
    60_000,
  )

  it.concurrent(
    'a lease heartbeat from the future is clamped to now: the lease goes stale and is taken',
    async () => {
      const h = home()
      expect((await run(['sessions'], h)).code).toBe(0)
      const db = new Database(path.join(h.castHome, 'cast.db'))
      const future = Date.now() + 10 * 365 * 86_400_000
      db.prepare(
        `INSERT INTO leases (name, pid, host, started_at, heartbeat_at, info) VALUES ('ingester', 999999, 'elsewhere', ?, ?, '{}')`,
      ).run(future, future)
      db.close()
      const first = await run(['daemon', '--once'], h)
      expect(first.code).toBe(5)
      const clamped = withDb(
        h.castHome,
        (d) => d.prepare(`SELECT heartbeat_at FROM leases WHERE name = 'ingester'`).get() as {heartbeat_at: number},
      )
      expect(clamped.heartbeat_at).toBeLessThanOrEqual(Date.now())
      // The clamped heartbeat ages like any other: once stale (10 s), the next ingester takes over.
      await sleep(Math.max(0, clamped.heartbeat_at + 10_500 - Date.now()))
      const later = await run(['daemon', '--once'], h)
      expect(later.code, later.stderr).toBe(0)
    },
    60_000,
  )

  it.concurrent(
    'a takeover always stops the old ingester: a stopped daemon whose lease was taken writes nothing more and exits',
    async () => {
      const h = home()
      const cwd = '/w/take'
      const file = claudeTranscriptPath(h.home, cwd, sid(5))
      writeFile(file, claudeLines({at: new Date(Date.now() - 60_000), cwd, prompt: 'take', sessionId: sid(5)}))
      const a = spawnCast(['daemon'], h.env)
      await waitForWatcher(h.castHome)
      a.kill('SIGSTOP')
      // Stale after 10 s without a heartbeat: a second daemon takes the lease.
      let b: ReturnType<typeof spawnCast> | null = null
      const deadline = Date.now() + 40_000
      while (Date.now() < deadline) {
        await sleep(1000)
        const lease = withDb(
          h.castHome,
          (d) => d.prepare(`SELECT heartbeat_at FROM leases WHERE name = 'ingester'`).get() as {heartbeat_at: number},
        )
        if (Date.now() - lease.heartbeat_at < 10_500) continue
        b = spawnCast(['daemon'], h.env)
        break
      }

      expect(b).not.toBeNull()
      const bDeadline = Date.now() + 20_000
      let holder = 0
      while (Date.now() < bDeadline && holder !== b!.pid) {
        await sleep(100)
        holder = withDb(h.castHome, (d) =>
          Number((d.prepare(`SELECT pid FROM leases WHERE name = 'ingester'`).get() as {pid: number} | undefined)?.pid ?? 0),
        )
      }

      expect(holder).toBe(b!.pid)
      await waitForWatcher(h.castHome)
      // The old one wakes up: its first write (or heartbeat) finds the lease gone, and it stops.
      fs.appendFileSync(
        file,
        JSON.stringify({
          cwd,
          message: {content: 'after', role: 'user'},
          parentUuid: 'a1',
          sessionId: sid(5),
          timestamp: new Date().toISOString(),
          type: 'user',
          uuid: 'u-after',
        }) + '\n',
      )
      a.kill('SIGCONT')
      const ended = await Promise.race([a.done, sleep(15_000).then(() => null)])
      expect(ended, 'the old daemon kept running after its lease was taken').not.toBeNull()
      expect(ended!.code).toBe(5)
      expect(ended!.stderr).toMatch(new RegExp(`lost the ingester lease to pid ${b!.pid}`))
      // The lease is still B's, and B read the line.
      expect(withDb(h.castHome, (d) => (d.prepare(`SELECT pid FROM leases WHERE name = 'ingester'`).get() as {pid: number}).pid)).toBe(
        b!.pid,
      )
      const until = Date.now() + 10_000
      let state = ''
      while (Date.now() < until && state !== 'working') {
        await sleep(100)
        state = withDb(h.castHome, (d) =>
          String((d.prepare('SELECT state FROM sessions WHERE native_id = ?').get(sid(5)) as {state: string}).state),
        )
      }

      expect(state).toBe('working')
      b!.kill('SIGTERM')
      await b!.done
    },
    120_000,
  )
})

describe('trust boundaries', () => {
  it.concurrent(
    'a CAST_HOME or spool others can write to, or that another uid owns, is refused with one line (exit 5)',
    async () => {
      const h = home()
      expect((await run(['sessions'], h)).code).toBe(0)
      const cases: [string, () => void, RegExp][] = [
        ['home 0777', () => fs.chmodSync(h.castHome, 0o777), /CAST_HOME .* can be written by anyone \(mode 0777\)/],
        ['home 0770', () => fs.chmodSync(h.castHome, 0o770), /CAST_HOME .* can be written by its group/],
        [
          'spool 0777',
          () => {
            fs.mkdirSync(path.join(h.castHome, 'spool'), {recursive: true})
            fs.chmodSync(path.join(h.castHome, 'spool'), 0o777)
          },
          /hook spool .* can be written by anyone/,
        ],
      ]
      if (isRoot)
        cases.push([
          'home owned by another uid',
          () => fs.chownSync(h.castHome, NOBODY, NOBODY),
          /CAST_HOME .* is owned by uid 65534, not by you/,
        ])
      for (const [what, make, message] of cases) {
        make()
        const r = await run(['sessions'], h)
        expect(r.code, what).toBe(5)
        expect(r.stderr.trim().split('\n')[0], what).toMatch(message)
        expect(r.stderr, what).not.toMatch(/at .*\.js:\d+/)
        const j = await run(['sessions', '--json'], h)
        expect(json(j).error.exit_code, what).toBe(5)
        // Put it back for the next case.
        fs.chmodSync(h.castHome, 0o700)
        if (isRoot) fs.chownSync(h.castHome, 0, 0)
        if (fs.existsSync(path.join(h.castHome, 'spool'))) fs.chmodSync(path.join(h.castHome, 'spool'), 0o700)
        expect((await run(['sessions'], h)).code, `${what}, fixed`).toBe(0)
      }
    },
    120_000,
  )

  ;(canSetpriv ? it.concurrent : it.concurrent.skip)(
    'a second user running cast over a CAST_HOME that is not theirs is refused, and their hook writes nothing there',
    async () => {
      const h = home()
      fs.chmodSync(h.dir, 0o755)
      expect((await run(['sessions'], h)).code).toBe(0)
      fs.chmodSync(h.castHome, 0o755)
      fs.mkdirSync(path.join(h.castHome, 'spool'), {mode: 0o755})
      const env = {...h.env}
      const r = await asNobody([process.execPath, BIN, 'sessions'], env)
      expect(r.code).toBe(5)
      expect(r.stderr).toMatch(/owned by uid 0, not by you \(uid 65534\)/)
      // Their hook: silent, exit 0, nothing in the spool.
      const hook = await asNobody([HOOK_BIN, 'claude_code'], env, '{"hook_event_name":"Stop","session_id":"x"}')
      expect([hook.code, hook.stderr]).toEqual([0, ''])
      expect(fs.readdirSync(path.join(h.castHome, 'spool'))).toEqual([])
      fs.chmodSync(h.castHome, 0o700)
    },
    60_000,
  )

  it.concurrent(
    'the hook: an exclusive temp file (planted names change nothing), silent in every failure',
    async () => {
      const h = home()
      const spool = path.join(h.castHome, 'spool')
      fs.mkdirSync(spool, {mode: 0o700, recursive: true})
      const victim = path.join(h.dir, 'victim')
      fs.writeFileSync(victim, 'untouched')
      // The old hook wrote `.tmp.<pid>`: plant that name for the next pids as symlinks to a victim.
      const next = Number(fs.readFileSync('/proc/sys/kernel/ns_last_pid', 'utf8'))
      for (let p = next; p < next + 400; p++) fs.symlinkSync(victim, path.join(spool, `.tmp.${p}`))
      for (let i = 0; i < 40; i++) {
        const r = await fireHook('claude_code', JSON.stringify({hook_event_name: 'Notification', i, session_id: sid(9)}), h.env)
        expect([r.code, r.stderr]).toEqual([0, ''])
      }

      expect(fs.readFileSync(victim, 'utf8')).toBe('untouched')
      const events = fs.readdirSync(spool).filter((n) => !n.startsWith('.'))
      expect(events).toHaveLength(40)
      for (const n of events) expect(fs.statSync(path.join(spool, n)).mode & 0o777).toBe(0o600)
      // Failures: CAST_HOME is a file; CAST_HOME under a read-only place; no stdin at all.
      const asFile = path.join(h.dir, 'a-file')
      fs.writeFileSync(asFile, '')
      for (const castHome of [asFile, '/proc/cast-home', path.join(asFile, 'below')]) {
        const r = await fireHook('claude_code', '{"hook_event_name":"Stop"}', {...h.env, CAST_HOME: castHome})
        expect([r.code, r.stderr], castHome).toEqual([0, ''])
      }

      const unwritable = path.join(h.dir, 'ro-spool')
      fs.mkdirSync(path.join(unwritable, 'spool'), {recursive: true})
      fs.chmodSync(path.join(unwritable, 'spool'), 0o500)
      if (canSetpriv) {
        fs.chmodSync(h.dir, 0o755)
        fs.chmodSync(unwritable, 0o755)
        fs.chownSync(unwritable, NOBODY, NOBODY)
        fs.chownSync(path.join(unwritable, 'spool'), NOBODY, NOBODY)
        const r = await asNobody([HOOK_BIN, 'claude_code'], {...h.env, CAST_HOME: unwritable}, '{}')
        expect([r.code, r.stderr]).toEqual([0, ''])
      }
    },
    60_000,
  )

  it.concurrent(
    'cast hooks install creates folders 0700 and a new settings file 0600; an existing one keeps its mode, its backup is 0600',
    async () => {
      const h = home()
      const r = await run(['hooks', 'install', 'claude'], h)
      expect(r.code, r.stderr).toBe(0)
      const dir = path.join(h.home, '.claude')
      expect(fs.statSync(dir).mode & 0o777).toBe(0o700)
      expect(fs.statSync(path.join(dir, 'settings.json')).mode & 0o777).toBe(0o600)
      const h2 = home()
      const settings = path.join(h2.home, '.claude', 'settings.json')
      writeFile(settings, JSON.stringify({model: 'x'}))
      fs.chmodSync(settings, 0o640)
      const r2 = await run(['hooks', 'install', 'claude'], h2)
      expect(r2.code, r2.stderr).toBe(0)
      expect(fs.statSync(settings).mode & 0o777).toBe(0o640)
      const backups = fs.readdirSync(path.dirname(settings)).filter((n) => n.includes('cast-backup'))
      expect(backups).toHaveLength(1)
      expect(fs.statSync(path.join(path.dirname(settings), backups[0]!)).mode & 0o777).toBe(0o600)
    },
    60_000,
  )

  it.concurrent(
    "an id that is one session's native id and the start of another's cast id is ambiguous (exit 4)",
    async () => {
      const h = home()
      writeFile(
        claudeTranscriptPath(h.home, '/w/a', sid(6)),
        claudeLines({at: new Date(Date.now() - 60_000), cwd: '/w/a', prompt: 'one', sessionId: sid(6)}),
      )
      const first = json(await run(['sessions', '--json'], h)).sessions[0] as {id: string}
      const forged = first.id.slice(0, 8)
      writeFile(
        claudeTranscriptPath(h.home, '/w/b', forged),
        claudeLines({at: new Date(Date.now() - 50_000), cwd: '/w/b', prompt: 'two', sessionId: forged}),
      )
      expect(json(await run(['sessions', '--json'], h)).sessions).toHaveLength(2)
      for (const verb of [
        ['pin', forged],
        ['explain', forged],
        ['kill', forged, '--dry-run'],
      ]) {
        const r = await run(verb, h)
        expect(r.code, verb.join(' ')).toBe(4)
        expect(r.stderr).toMatch(/matches 2 sessions/)
      }

      expect(json(await run(['sessions', '--json'], h)).sessions.every((s: {pinned: boolean}) => !s.pinned)).toBe(true)
    },
    60_000,
  )
})

describe('faults say the truth', () => {
  ;(isRoot ? it.concurrent : it.concurrent.skip)(
    'a full disk reads "No space left on …", never SQLITE_IOERR_SHMSIZE; doctor says to free space, not to move the store',
    async () => {
      const h = home()
      const mnt = path.join(h.dir, 'disk')
      fs.mkdirSync(mnt)
      try {
        execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mnt], {stdio: 'pipe'})
      } catch {
        console.log('[skip] cannot mount a tmpfs here')
        return
      }

      mounts.push(mnt)
      const castHome = path.join(mnt, 'cast')
      expect((await run(['sessions'], h, {CAST_HOME: castHome})).code).toBe(0)
      try {
        execFileSync('dd', ['if=/dev/zero', `of=${path.join(mnt, 'fill')}`, 'bs=4k'], {stdio: 'pipe'})
      } catch {
        // dd stops when the disk is full
      }

      for (const args of [['sessions'], ['daemon', '--once'], ['pin', 'anything']]) {
        const r = await run(args, h, {CAST_HOME: castHome})
        expect(r.code, args.join(' ')).toBe(1)
        expect(r.stderr.split('\n')[0], args.join(' ')).toMatch(/^cast: No space left on the disk that holds the cast store/)
        expect(r.stderr).not.toMatch(/SHMSIZE|disk I\/O error|SqliteError/)
      }

      const doc = await run(['doctor', '--json'], h, {CAST_HOME: castHome})
      const report = json(doc)
      expect(report.store.ok).toBe(false)
      const fix = report.problems.map((p: {fix: string | null}) => p.fix ?? '').join(' ')
      expect(fix).toMatch(/Free some space/)
      expect(fix).not.toMatch(/aside|--repair/)
      fs.rmSync(path.join(mnt, 'fill'))
      expect((await run(['sessions'], h, {CAST_HOME: castHome})).code).toBe(0)
    },
    90_000,
  )

  it.concurrent(
    "a damaged store: doctor reports the failed integrity check and `cast doctor --repair` keeps cast's own records and re-reads the agents' files",
    async () => {
      const h = home()
      for (let i = 10; i < 40; i++) {
        writeFile(
          claudeTranscriptPath(h.home, `/w/r${i}`, sid(i)),
          claudeLines({
            at: new Date(Date.now() - 600_000 + i * 1000),
            cwd: `/w/r${i}`,
            prompt: `task ${i} `.repeat(200),
            sessionId: sid(i),
          }),
        )
      }

      const ids = (json(await run(['sessions', '--json'], h)).sessions as {id: string; native_id: string}[]).sort((a, b) =>
        a.native_id.localeCompare(b.native_id),
      )
      expect(ids).toHaveLength(30)
      expect((await run(['pin', ids[0]!.id], h)).code).toBe(0)
      expect((await run(['label', 'keep-me', ids[1]!.id], h)).code).toBe(0)
      expect((await run(['state', '--session', ids[2]!.id, '--status', 'done', 'shipped it'], h)).code).toBe(0)
      // Damage the pages of the contributions table (what the agents' files said), checkpointed first.
      const file = path.join(h.castHome, 'cast.db')
      const db = new Database(file)
      db.pragma('wal_checkpoint(TRUNCATE)')
      const pages = db.prepare(`SELECT pageno FROM dbstat WHERE name = 'contributions' AND pagetype = 'leaf'`).all() as {pageno: number}[]
      const pageSize = Number(db.pragma('page_size', {simple: true}))
      db.close()
      expect(pages.length).toBeGreaterThan(1)
      const fd = fs.openSync(file, 'r+')
      for (const {pageno} of pages.slice(0, 2)) fs.writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, (pageno - 1) * pageSize)
      fs.closeSync(fd)
      const doc = await run(['doctor', '--json'], h)
      expect(doc.code).toBe(1)
      const report = json(doc)
      expect(report.store.ok).toBe(false)
      expect(report.store.error).toMatch(/integrity check failed/)
      expect(report.problems.map((p: {fix: string | null}) => p.fix).join(' ')).toMatch(/cast doctor --repair/)
      const t0 = performance.now()
      const repair = await run(['doctor', '--repair', '--json'], h)
      console.log(`[figure] doctor --repair of a 30-session store: ${(performance.now() - t0).toFixed(0)} ms; ${repair.stderr.trim()}`)
      expect(repair.code, repair.stderr + repair.stdout).toBe(0)
      expect(json(repair).store.ok).toBe(true)
      expect(repair.stderr).toMatch(/repaired the store/)
      expect(fs.readdirSync(h.castHome).some((n) => n.startsWith('cast.db.damaged-'))).toBe(true)
      expect(withDb(h.castHome, (d) => d.pragma('integrity_check', {simple: true}))).toBe('ok')
      const after = json(await run(['sessions', '--json', '--all'], h)).sessions as {
        id: string
        pinned: boolean
        labels: string[]
        state: string
        reason: string
        state_line: {text: string} | null
        messages: number
      }[]
      expect(after).toHaveLength(30)
      const byId = new Map(after.map((s) => [s.id, s]))
      expect(byId.get(ids[0]!.id)!.pinned).toBe(true)
      expect(byId.get(ids[1]!.id)!.labels).toContain('keep-me')
      expect(byId.get(ids[2]!.id)!.state).toBe('done')
      expect(byId.get(ids[2]!.id)!.state_line?.text).toBe('shipped it')
      // Re-indexed: every session's facts are back from its transcript.
      expect(after.every((s) => s.messages === 2)).toBe(true)
      // An intact store: nothing to repair, and doctor never advises moving it aside.
      const again = await run(['doctor', '--json'], h)
      expect(again.code).toBe(0)
      expect(again.stdout).not.toMatch(/aside/)
    },
    120_000,
  )
})

// Timed alone, after the concurrent tests above: the budget is the hook's, not the machine's load.
describe('the hook is fast', () => {
  it('the hook command answers 40 runs in a row with exit 0 and nothing on stderr (wall time recorded; the budget is bench/hook)', async () => {
    const h = home()
    const times: number[] = []
    for (let i = 0; i < 40; i++) {
      const t0 = performance.now()
      const r = await fireHook('claude_code', JSON.stringify({hook_event_name: 'Notification', i, session_id: sid(9)}), h.env)
      times.push(performance.now() - t0)
      expect([r.code, r.stderr]).toEqual([0, ''])
    }

    times.sort((a, b) => a - b)
    const p50 = times[20]!
    const p95 = times[Math.floor(times.length * 0.95)]!
    console.log(`[figure] hook wall time over 40 runs (spawn included): p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms`)
    // The budget's figures are bench/'s (npm run bench, hook row); here they are recorded only.
    expect(times).toHaveLength(40)
  }, 60_000)
})
