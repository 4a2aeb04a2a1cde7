/**
 * kill -9 of the ingester during a cold index, at many random points, restarting after each:
 * once it finishes, the store holds the same sessions, facts and states as a clean index of the
 * same corpus, and the transitions log has no gap and no duplicate for any session.
 */
import fs from 'node:fs'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {makeHome, type TempHome} from '../helpers/cli.js'
import {CORPUS_NOW, generateCorpus, killChildren, random, SEED, sleep, spawnCast, transitionsProblems, withDb} from './helpers.js'

const KILLS = 24
const SESSIONS = 300
const BYTES = 30 * 1024 * 1024

interface Snapshot {
  sessions: Map<string, {facts: string; state: string; reason: string; bucket: string; parent: string | null}>
  files: Map<string, {offset: number; parseErrors: number}>
}

function snapshot(castHome: string): Snapshot {
  return withDb(castHome, (db) => {
    const sessions = new Map<string, {facts: string; state: string; reason: string; bucket: string; parent: string | null}>()
    for (const r of db.prepare('SELECT id, facts, state, reason, bucket, parent_id FROM sessions').all() as any[]) {
      sessions.set(r.id, {bucket: r.bucket, facts: r.facts, parent: r.parent_id, reason: r.reason, state: r.state})
    }

    const files = new Map<string, {offset: number; parseErrors: number}>()
    for (const r of db.prepare('SELECT path, offset, parse_errors FROM files').all() as any[])
      files.set(r.path, {offset: r.offset, parseErrors: r.parse_errors})
    return {files, sessions}
  })
}

/** Hook payloads as the hook command leaves them, for sessions of the corpus. */
function writeSpool(castHome: string, payloads: readonly {name: string; body: string}[]): void {
  const dir = path.join(castHome, 'spool')
  fs.mkdirSync(dir, {mode: 0o700, recursive: true})
  for (const p of payloads) fs.writeFileSync(path.join(dir, p.name), p.body, {mode: 0o600})
}

let h: TempHome
let corpus: ReturnType<typeof generateCorpus>
let payloads: {name: string; body: string}[]
let env: (castHome: string) => Record<string, string>

beforeAll(() => {
  h = makeHome()
  corpus = generateCorpus(h.home, {bytes: BYTES, seed: SEED, sessions: SESSIONS})
  const r = random(SEED + 7)
  payloads = Array.from({length: 40}, (_, i) => {
    const s = r.pick(corpus.sessions)
    const event = r.pick(['PermissionRequest', 'Stop', 'UserPromptSubmit', 'Notification'])
    const body = JSON.stringify({
      cwd: '/home/dev/src/api',
      hook_event_name: event,
      message: 'Claude needs your permission to use Bash',
      notification_type: 'permission_prompt',
      session_id: s.nativeId,
      tool_name: 'Bash',
    })
    return {
      body,
      name: `${Math.floor(CORPUS_NOW / 1000) - 600 + i}.${String(r.int(0, 999_999_999)).padStart(9, '0')}.${1000 + i}.claude_code.json`,
    }
  })
  env = (castHome) => ({...h.env, CAST_HOME: castHome, CAST_NOW: new Date(CORPUS_NOW).toISOString()})
})

afterAll(async () => {
  await killChildren()
  h.cleanup()
})

describe('kill -9 during a cold index', () => {
  it(`at ${KILLS}+ random points, then a restart: the same sessions, facts and states as a clean index, and a sound transitions log`, async () => {
    const r = random(SEED)
    console.log(
      `[reliability] kill -9: seed ${SEED}; corpus ${corpus.sessions.length} sessions, ${corpus.files} files, ${(corpus.bytes / 1e6).toFixed(1)} MB`,
    )

    // The clean index, timed: the kill points are spread over its length.
    const cleanHome = path.join(h.dir, 'clean')
    writeSpool(cleanHome, payloads)
    const t0 = Date.now()
    const clean = await spawnCast(['daemon', '--once'], env(cleanHome)).done
    const cleanMs = Date.now() - t0
    expect(clean.code, clean.stderr).toBe(0)
    const reference = snapshot(cleanHome)
    expect(reference.sessions.size).toBe(corpus.sessions.length + corpus.sessions.reduce((a, s) => a + s.subagents, 0))
    withDb(cleanHome, (db) => expect(transitionsProblems(db)).toEqual([]))

    let kills = 0
    let rounds = 0
    let runs = 0
    const killedAt: number[] = []
    while (kills < KILLS) {
      rounds++
      const home = path.join(h.dir, `crash-${rounds}`)
      writeSpool(home, payloads)
      for (;;) {
        // Anywhere from start-up (opening, migrating) to the last commit of a full cold index.
        const delay = Math.round(cleanMs * (0.15 + 0.95 * r.next()))
        const child = spawnCast(['daemon', '--once'], env(home))
        runs++
        const timer = sleep(delay).then(() => child.kill('SIGKILL'))
        const result = await child.done
        await timer
        if (result.signal === 'SIGKILL') {
          kills++
          // Killed before the first migration committed: the file may exist with no schema in it
          // (nothing was committed, which is consistent too).
          const migrated =
            fs.existsSync(path.join(home, 'cast.db')) &&
            withDb(home, (db) => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sessions'").get() !== undefined)
          killedAt.push(migrated ? withDb(home, (db) => (db.prepare('SELECT COUNT(*) AS n FROM sessions').get() as {n: number}).n) : -1)
          // Whatever was committed so far is consistent on its own.
          if (migrated) withDb(home, (db) => expect(transitionsProblems(db)).toEqual([]))
          continue
        }

        expect(result.code, result.stderr).toBe(0)
        break
      }

      const got = snapshot(home)
      expect([...got.sessions.keys()].sort()).toEqual([...reference.sessions.keys()].sort())
      for (const [id, want] of reference.sessions) expect(got.sessions.get(id), `session ${id}`).toEqual(want)
      expect(got.files).toEqual(reference.files)
      withDb(home, (db) => {
        expect(db.pragma('integrity_check', {simple: true})).toBe('ok')
        expect(transitionsProblems(db)).toEqual([])
      })
      expect(fs.readdirSync(path.join(home, 'spool')).filter((n) => !n.startsWith('.'))).toEqual([])
    }

    console.log(
      `[reliability] kill -9: ${kills} kills over ${rounds} cold indexes (${runs} runs; clean index ${cleanMs} ms); sessions committed at each kill: ${killedAt.join(' ')}`,
    )
  }, 240_000)
})
