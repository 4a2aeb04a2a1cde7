/**
 * Recent first through the CLI (issue 16 point 1), on real Claude Code 2.1.328 transcripts: with
 * a history whose old files hold more than the deferral threshold, the first `cast sessions`
 * answers from the recent file, shows it exactly as the full index does and says the rest is read
 * in the background; the background pass then brings in every old session by itself; old files
 * that end on an open question show in the first answer (past a thousand old files their tails
 * are read on the read worker while the recent file is read); `--all` on a fresh store reads
 * everything before it answers.
 */
import fs from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {json, makeHome, runCast, type TempHome} from '../helpers/cli.js'

const REAL = path.join(import.meta.dirname, '..', 'fixtures', 'claude-code', 'real-2.1.328')
const NOW = Date.parse('2026-12-01T12:00:00Z')
const DAY = 86_400_000
const OLD = 110 // × 162 KB: past the 16 MB below which a cold start reads everything
const RECENT = '76890e24-14aa-4d4f-8608-cdd0a9338e07'
let h: TempHome | null = null

/**
 * The background passes a test started (any process whose CAST_HOME is this test's): waited for,
 * killed after 30 s, before its folder goes. Found by environment, not by the lease: on a loaded
 * machine a pass spawned as the command exited may not hold the lease yet.
 */
function passesOf(castHome: string): number[] {
  const pids: number[] = []
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue
    try {
      const env = fs.readFileSync(`/proc/${name}/environ`, 'latin1').split('\0')
      if (env.includes(`CAST_HOME=${castHome}`)) pids.push(Number(name))
    } catch {
      // gone, or not ours
    }
  }

  return pids
}

async function stopBackfill(castHome: string): Promise<void> {
  for (let i = 0; i < 300 && passesOf(castHome).length > 0; i++) await new Promise((r) => setTimeout(r, 100))
  for (const pid of passesOf(castHome)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
}

afterEach(async () => {
  if (h) await stopBackfill(h.castHome)
  h?.cleanup()
  h = null
})

function history(home: string): void {
  const dir = path.join(home, '.claude', 'projects', '-src-app')
  fs.mkdirSync(dir, {recursive: true})
  const old = new Date(NOW - 30 * DAY)
  for (let i = 0; i < OLD; i++) {
    const file = path.join(dir, `00000000-0000-4000-8000-${String(i).padStart(12, '0')}.jsonl`)
    fs.copyFileSync(path.join(REAL, 'approval-full.jsonl'), file)
    fs.utimesSync(file, old, old)
  }

  const file = path.join(dir, `${RECENT}.jsonl`)
  fs.copyFileSync(path.join(REAL, 'question-full.jsonl'), file)
  fs.utimesSync(file, new Date(NOW - 3_600_000), new Date(NOW - 3_600_000))
}

type Row = {native_id: string; state: string; reason: string; title: string | null; messages: number; ask: unknown}
const seen = (r: Row) => ({ask: r.ask, messages: r.messages, reason: r.reason, state: r.state, title: r.title})

describe('recent first (cast sessions on a large history)', () => {
  it('answers from the recent file, exactly as the full index shows it; the background pass reads the rest', async () => {
    h = makeHome()
    history(h.home)
    const env = {...h.env, CAST_NOW: new Date(NOW).toISOString()}

    const first = await runCast(['sessions', '--json'], {env})

    expect(first.code).toBe(0)
    const rows = json<{sessions: Row[]}>(first).sessions
    expect(rows.map((r) => r.native_id)).toEqual([RECENT])

    // Nothing else runs cast here: the background pass alone brings the old sessions in.
    let all: Row[] = []
    for (let i = 0; i < 120 && all.length < OLD + 1; i++) {
      await new Promise((r) => setTimeout(r, 500))
      all = json<{sessions: Row[]}>(await runCast(['sessions', '--json'], {env})).sessions
    }

    expect(all.length).toBe(OLD + 1)
    expect(seen(all.find((r) => r.native_id === RECENT)!)).toEqual(seen(rows[0]!))
    // The first answer said it was partial, with the files it left; once the pass ended, no more.
    expect(json(first)).toMatchObject({partial: true, unread_files: OLD})
    await stopBackfill(h.castHome)
    const complete = json(await runCast(['sessions', '--json'], {env}))
    expect(complete).not.toHaveProperty('partial')
    expect(complete).not.toHaveProperty('unread_files')
  }, 120_000)

  it('the human listing says the older files are being read', async () => {
    h = makeHome()
    history(h.home)
    const env = {...h.env, CAST_NOW: new Date(NOW).toISOString()}

    const r = await runCast(['sessions'], {env})

    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`Reading ${OLD} older files (`)
    expect(r.stdout).toContain('"cast sessions --all" waits for them')
  })

  it('on a history of over a thousand old files, shows those that end on an open question in the first answer (their tails read beside the recent file)', async () => {
    h = makeHome()
    history(h.home)
    const dir = path.join(h.home, '.claude', 'projects', '-src-app')
    const old = new Date(NOW - 30 * DAY)
    const lines = fs.readFileSync(path.join(REAL, 'question-full.jsonl'), 'utf8').split('\n')
    expect(lines[19]).toContain('"name":"AskUserQuestion","type":"tool_use"')
    // Many small old files (a line of bookkeeping each), and three left on the open question as Claude Code leaves them.
    for (let i = 0; i < 900; i++) {
      const file = path.join(dir, `10000000-0000-4000-8000-${String(i).padStart(12, '0')}.jsonl`)
      fs.writeFileSync(file, lines[21] + '\n')
      fs.utimesSync(file, old, old)
    }

    const asking = ['20000000-0000-4000-8000-000000000001', '20000000-0000-4000-8000-000000000002', '20000000-0000-4000-8000-000000000003']
    for (const id of asking) {
      const file = path.join(dir, `${id}.jsonl`)
      fs.writeFileSync(file, [...lines.slice(0, 24), lines[33], ''].join('\n'))
      fs.utimesSync(file, old, old)
    }

    const env = {...h.env, CAST_NOW: new Date(NOW).toISOString()}

    const first = await runCast(['sessions', '--json'], {env, timeout: 60_000})

    expect(first.code).toBe(0)
    const rows = json<{sessions: Row[]}>(first).sessions
    expect(json(first)).toMatchObject({partial: true, unread_files: OLD + 900 + asking.length})
    for (const id of asking) expect(rows.find((r) => r.native_id === id)).toMatchObject({reason: 'question', state: 'needs_input'})
    expect(rows.map((r) => r.native_id).sort()).toEqual([RECENT, ...asking].sort())
  }, 90_000)

  it('--all reads every file before it answers', async () => {
    h = makeHome()
    history(h.home)
    const env = {...h.env, CAST_NOW: new Date(NOW).toISOString()}

    const r = await runCast(['sessions', '--json', '--all'], {env, timeout: 60_000})

    expect(r.code).toBe(0)
    expect(json<{sessions: Row[]}>(r).sessions.length).toBe(OLD + 1)
  }, 90_000)
})
