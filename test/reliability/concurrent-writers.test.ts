/**
 * Twenty writer processes at once (state, pin, snooze, own, decide answer) while `cast daemon`
 * ingests appended transcript lines and Claude Code hooks fire: every write is there afterwards,
 * nobody sees SQLITE_BUSY, and the transitions log chains for every session.
 */
import fs from 'node:fs'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {
  claudeLines,
  claudeTranscriptPath,
  json,
  makeHome,
  runCast,
  type RunResult,
  type TempHome,
  waitForWatcher,
  writeFile,
} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'
import {fireHook, killChildren, openDb, random, SEED, sleep, spawnCast, transitionsProblems, withDb} from './helpers.js'

const WRITERS = 20
const SESSIONS = 15
const OWNER = 'bob@example.com'
const BUSY = /SQLITE_BUSY|database is locked|SqliteError/i

let h: TempHome
beforeEach(() => {
  h = makeHome()
})
afterEach(async () => {
  await killChildren()
  h.cleanup()
})

const sid = (i: number): string => `c0ffee${String(i).padStart(2, '0')}-1111-4222-8333-444444444444`

interface Task {
  readonly verb: 'state' | 'pin' | 'snooze' | 'own' | 'answer'
  readonly session: number
  readonly args: string[]
}

describe('concurrent writers', () => {
  it(`${WRITERS} writer processes, an ingester and hooks at once: no write lost, no SQLITE_BUSY, a sound transitions log`, async () => {
    const r = random(SEED)
    console.log(`[reliability] concurrent writers: seed ${SEED} (CAST_TEST_SEED=${SEED} replays it)`)
    // Deliveries of decision answers resume the session headless: a no-op stands in for claude.
    fs.mkdirSync(h.castHome, {recursive: true})
    fs.writeFileSync(path.join(h.castHome, 'config.json'), JSON.stringify({agents: {claude_code: {resume: ['true', '{id}']}}}))
    const now = Date.now()
    for (let i = 0; i < SESSIONS; i++) {
      writeFile(
        claudeTranscriptPath(h.home, '/src/app', sid(i)),
        claudeLines({at: new Date(now - 3_600_000 + i * 1000), cwd: '/src/app', prompt: `Task ${i}`, sessionId: sid(i)}),
      )
    }

    const listed = json(await runCast(['sessions', '--json', '--all'], {env: h.env}))
    expect(listed.sessions).toHaveLength(SESSIONS)
    const ids = new Map<string, string>(listed.sessions.map((s: any) => [s.native_id, s.id]))
    const id = (i: number): string => ids.get(sid(i))!
    const cards: string[] = []
    // The cards are set-up, asked one after another: in the test process (run-command.ts). The
    // writers below are the separate processes under test.
    for (let i = 0; i < SESSIONS; i++) {
      const c = await runCommand(
        ['decide', `Which way for task ${i}?`, '--option', 'Left :: cheap', '--option', 'Right :: thorough', '--session', id(i), '--json'],
        {env: h.env},
      )
      expect(c.code, c.stderr + c.stdout).toBe(0)
      cards.push(json(c).card?.id ?? json(c).id)
    }

    // The work: every session gets a state, a pin and a decision answer; half a snooze, half an owner.
    const statuses = ['working', 'blocked', 'done', 'dormant'] as const
    const declared = new Map<number, {status: string; text: string}>()
    const answers = new Map<number, number>()
    const tasks: Task[] = []
    for (let i = 0; i < SESSIONS; i++) {
      const status = r.pick(statuses)
      const text = `lane note ${i}: ${r.hex(8)}`
      declared.set(i, {status, text})
      tasks.push({args: ['state', '--session', id(i), '--status', status, text], session: i, verb: 'state'})
      tasks.push({args: ['pin', id(i).slice(0, 8)], session: i, verb: 'pin'})
      tasks.push(
        i % 2 === 0
          ? {args: ['snooze', id(i), '--for', '1h'], session: i, verb: 'snooze'}
          : {args: ['own', id(i), OWNER], session: i, verb: 'own'},
      )
      const choice = r.int(1, 2)
      answers.set(i, choice)
      tasks.push({args: ['decide', 'answer', cards[i]!, String(choice)], session: i, verb: 'answer'})
    }

    const lanes: Task[][] = Array.from({length: WRITERS}, () => [])
    for (const [k, t] of r.shuffle(tasks).entries()) lanes[k % WRITERS]!.push(t)

    const daemon = spawnCast(['daemon'], h.env)
    await waitForWatcher(h.castHome)

    // Meanwhile the agents work: transcripts grow and hooks fire.
    let stop = false
    const hookResults: RunResult[] = []
    const agents = (async () => {
      let n = 0
      while (!stop) {
        const i = r.int(0, SESSIONS - 1)
        const at = new Date().toISOString()
        const file = claudeTranscriptPath(h.home, '/src/app', sid(i))
        fs.appendFileSync(
          file,
          JSON.stringify({
            cwd: '/src/app',
            isSidechain: false,
            message: {content: `more work ${n}`, role: 'user'},
            parentUuid: null,
            sessionId: sid(i),
            timestamp: at,
            type: 'user',
            userType: 'external',
            uuid: `x${n}`,
            version: '2.1.100',
          }) + '\n',
        )
        const event = r.pick(['UserPromptSubmit', 'Stop', 'PreToolUse', 'Notification'])
        const payload = {
          cwd: '/src/app',
          hook_event_name: event,
          message: 'Claude needs your permission to use Bash',
          notification_type: 'permission_prompt',
          session_id: sid(r.int(0, SESSIONS - 1)),
          tool_name: 'Bash',
        }
        hookResults.push(await fireHook('claude_code', JSON.stringify(payload), h.env))
        n++
        await sleep(r.int(20, 80))
      }
    })()

    const results = await Promise.all(
      lanes.map(async (lane) => {
        const out: {task: Task; result: RunResult}[] = []
        for (const task of lane) out.push({result: await runCast(task.args, {env: h.env, timeout: 60_000}), task})
        return out
      }),
    )
    stop = true
    await agents
    // Let the ingester drain what the agents wrote, then stop it as a user would.
    await sleep(500)
    daemon.kill('SIGTERM')
    const d = await daemon.done
    const final = await runCast(['sessions', '--json', '--all'], {env: h.env})

    // Every writer exited 0 with a clean stderr; nothing surfaced a busy database.
    const failed = results.flat().filter(({result}) => result.code !== 0 || result.stderr.trim() !== '')
    expect(failed.map(({result, task}) => `${task.args.join(' ')} -> ${result.code}: ${result.stderr}`)).toEqual([])
    expect(results.flat().filter(({result}) => BUSY.test(result.stdout + result.stderr))).toEqual([])
    expect(hookResults.every((x) => x.code === 0 && x.stderr === '')).toBe(true)
    expect(d.stderr).not.toMatch(BUSY)
    expect(final.code).toBe(0)
    expect(final.stderr).toBe('')

    // No write lost: every declaration, pin, snooze, owner and answer is in the store.
    withDb(h.castHome, (db) => {
      for (let i = 0; i < SESSIONS; i++) {
        const rec = db.prepare('SELECT * FROM records WHERE session_id = ?').get(id(i)) as any
        const decl = JSON.parse(rec.declaration)
        expect({status: decl.status, text: decl.text}, `session ${i}`).toEqual(declared.get(i))
        expect(rec.pinned, `pin ${i}`).toBe(1)
        if (i % 2 === 0) {
          expect(rec.snoozed_until, `snooze ${i}`).toBeGreaterThan(now)
          expect(rec.filing, `snooze ${i}`).toBe('snoozed')
        } else {
          const owners = (db.prepare('SELECT who FROM owners WHERE session_id = ?').all(id(i)) as {who: string}[]).map((o) => o.who)
          expect(owners, `owner ${i}`).toContain(OWNER)
        }

        const card = db.prepare('SELECT answer, answered_by FROM decisions WHERE id = ?').get(cards[i]) as any
        expect(card, `card ${i}`).toEqual({answer: answers.get(i), answered_by: 'me@example.com'})
      }

      expect(transitionsProblems(db)).toEqual([])
    })
    console.log(
      `[reliability] concurrent writers: ${WRITERS} writers, ${tasks.length} writes, ${hookResults.length} hooks, ${withDb(h.castHome, (db) => (db.prepare('SELECT COUNT(*) AS n FROM transitions').get() as any).n)} transitions`,
    )
  }, 180_000)

  it(`without a daemon, ${WRITERS} writers that each sync first: the store never goes back in time and no hook is applied twice`, async () => {
    const r = random(SEED + 1)
    const now = Date.now()
    const n = 10
    const expected = new Map<string, number>()
    for (let i = 0; i < n; i++) {
      writeFile(
        claudeTranscriptPath(h.home, '/src/app', sid(i)),
        claudeLines({at: new Date(now - 3_600_000), cwd: '/src/app', prompt: `Task ${i}`, sessionId: sid(i)}),
      )
      expected.set(sid(i), 2)
    }

    const listed = json(await runCast(['sessions', '--json', '--all'], {env: h.env}))
    const ids: string[] = listed.sessions.map((s: any) => s.id)
    const idOf = new Map<string, string>(listed.sessions.map((s: any) => [s.id, s.native_id]))

    // A reader that polls the database the whole time: a session's message count only grows.
    const regressions: string[] = []
    const seen = new Map<string, number>()
    const db = openDb(h.castHome)
    const poll = setInterval(() => {
      for (const row of db.prepare('SELECT id, facts FROM sessions').all() as {id: string; facts: string}[]) {
        const m = (JSON.parse(row.facts) as {messages: number}).messages
        const before = seen.get(row.id) ?? 0
        if (m < before) regressions.push(`${idOf.get(row.id)}: ${before} -> ${m} messages`)
        seen.set(row.id, m)
      }
    }, 10)

    let stop = false
    let bad = 0
    const hookResults: RunResult[] = []
    const agents = (async () => {
      for (let k = 0; !stop; k++) {
        const native = sid(r.int(0, n - 1))
        fs.appendFileSync(
          claudeTranscriptPath(h.home, '/src/app', native),
          JSON.stringify({
            cwd: '/src/app',
            isSidechain: false,
            message: {content: `step ${k}`, role: 'user'},
            parentUuid: null,
            sessionId: native,
            timestamp: new Date().toISOString(),
            type: 'user',
            userType: 'external',
            uuid: `y${k}`,
            version: '2.1.100',
          }) + '\n',
        )
        expected.set(native, expected.get(native)! + 1)
        if (k % 3 === 0) {
          // Unreadable payloads are counted once each, whoever consumes them.
          hookResults.push(await fireHook('claude_code', `{"hook_event_name": "Stop", "session_id": "${native}"`, h.env))
          bad++
        } else {
          hookResults.push(
            await fireHook(
              'claude_code',
              JSON.stringify({cwd: '/src/app', hook_event_name: r.pick(['UserPromptSubmit', 'Stop']), session_id: native}),
              h.env,
            ),
          )
        }

        await sleep(r.int(5, 40))
      }
    })()

    const verbs = [
      (id: string) => ['pin', id],
      (id: string) => ['unpin', id],
      (id: string) => ['state', '--session', id, `step ${r.hex(4)}`],
      () => ['sessions', '--json', '--all'],
    ]
    const results = await Promise.all(
      Array.from({length: WRITERS}, async () => {
        const out: {args: string[]; result: RunResult}[] = []
        for (let k = 0; k < 2; k++) {
          const args = r.pick(verbs)(r.pick(ids))
          out.push({args, result: await runCast(args, {env: h.env, timeout: 60_000})})
        }

        return out
      }),
    )
    stop = true
    await agents
    const final = await runCast(['sessions', '--json', '--all'], {env: h.env})
    clearInterval(poll)
    db.close()

    const failed = results.flat().filter(({result}) => result.code !== 0 || result.stderr.trim() !== '')
    expect(failed.map(({args, result}) => `${args.join(' ')} -> ${result.code}: ${result.stderr}`)).toEqual([])
    expect(hookResults.every((x) => x.code === 0 && x.stderr === '')).toBe(true)
    expect(regressions).toEqual([])
    expect(Object.fromEntries(json(final).sessions.map((s: any) => [s.native_id, s.messages]))).toEqual(Object.fromEntries(expected))
    withDb(h.castHome, (d) => {
      expect((d.prepare(`SELECT parse_errors AS n FROM files WHERE path = 'hooks://spool'`).get() as any)?.n).toBe(bad)
      expect(transitionsProblems(d)).toEqual([])
    })
  }, 180_000)

  it('hooks fired in bursts while the ingester consumes the spool: every event is applied, none twice', async () => {
    const daemon = spawnCast(['daemon'], h.env)
    await waitForWatcher(h.castHome)
    const fired: string[] = []
    // Ten at once: stamps taken in one order land in another.
    for (let burst = 0; burst < 12; burst++) {
      const batch = Array.from(
        {length: 10},
        (_, k) => `b0a710${String(burst).padStart(2, '0')}-${String(k).padStart(4, '0')}-4222-8333-444444444444`,
      )
      fired.push(...batch)
      const results = await Promise.all(
        batch.map((s) =>
          fireHook('claude_code', JSON.stringify({cwd: '/src/app', hook_event_name: 'UserPromptSubmit', session_id: s}), h.env),
        ),
      )
      expect(results.every((x) => x.code === 0)).toBe(true)
      await sleep(30)
    }

    // Drained when the spool is empty; whatever a slow machine left is consumed by one more pass
    // (a lost event is a file deleted unapplied: no later pass brings it back).
    const spool = path.join(h.castHome, 'spool')
    for (let i = 0; i < 100 && fs.readdirSync(spool).some((n) => !n.startsWith('.')); i++) await sleep(100)
    daemon.kill('SIGTERM')
    await daemon.done
    expect((await runCast(['daemon', '--once'], {env: h.env})).code).toBe(0)

    const applied = withDb(h.castHome, (db) =>
      (db.prepare(`SELECT native_id FROM contributions WHERE path = 'hooks://claude_code'`).all() as {native_id: string}[]).map(
        (r) => r.native_id,
      ),
    )
    expect(applied.sort()).toEqual(fired.sort())
  }, 120_000)
})
