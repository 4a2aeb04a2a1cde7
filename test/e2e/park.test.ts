/**
 * A park that releases itself (`cast stash A --until-ready B`), tried as a user would: two fake
 * Claude Code agents (test/fakes) run, A is parked on B, B is given a turn while
 * `cast sessions -w --json` runs; the stream shows B's turn ending and then A's release, a line
 * with the reason `park_released`. Also the refusals (exit 2, one line) and the note.
 */
import fs from 'node:fs'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {type FakeProcess, startFake, waitFor} from '../fakes/agents.js'
import {json, killStarted, makeHome, runCast, startCast, type TempHome, waitForWatcher} from '../helpers/cli.js'

const A = 'aaaaaaaa-2222-4333-8444-555555555555'
const B = 'bbbbbbbb-2222-4333-8444-555555555555'
const C = 'cccccccc-2222-4333-8444-555555555555'
let h: TempHome
let fakes: FakeProcess[] = []

beforeEach(() => {
  h = makeHome()
})
afterEach(async () => {
  for (const f of fakes) await f.stop()
  fakes = []
  killStarted()
  h.cleanup()
})

/** A fake agent that has finished its first turn (its transcript settled), in its own folder. */
async function agent(sid: string, delayMs = 300): Promise<FakeProcess> {
  const cwd = path.join(h.dir, sid.slice(0, 4))
  fs.mkdirSync(cwd, {recursive: true})
  const f = startFake({cwd, env: {...h.env, FAKE_DELAY_MS: String(delayMs)}, prompt: `first turn of ${sid.slice(0, 4)}`, sessionId: sid})
  fakes.push(f)
  await f.waitForOutput(/Done:/)
  return f
}

async function stateOf(sid: string): Promise<{state: string; bucket: string; id: string}> {
  const r = await runCast(['sessions', '--json', '--all'], {env: h.env})
  const s = json<{sessions: {native_id: string; state: string; bucket: string; id: string}[]}>(r).sessions.find((x) => x.native_id === sid)
  if (!s) throw new Error(`no session ${sid}: ${r.stdout}`)
  return s
}

describe('cast stash --until-ready', () => {
  it('releases the parked session in the same pass that logs the other turn ending, while sessions -w runs', async () => {
    await agent(A)
    // B thinks for 3 s on its next turn, so the watch sees it working first.
    const b = await agent(B, 3000)
    await waitFor(async () => (await stateOf(B)).state !== 'working' && (await stateOf(A)).state !== 'working')

    const park = await runCast(['stash', A.slice(0, 8), '--until-ready', B.slice(0, 8), '--note', 'look again once B is through'], {
      env: h.env,
    })
    expect(park.stderr).toBe('')
    expect(park.code).toBe(0)
    expect(park.stdout).toContain(`parked until`)
    expect((await stateOf(A)).bucket).toBe('stashed')

    const w = startCast(['sessions', '-w', '--json'], h.env)
    await waitForWatcher(h.castHome)
    b.say('second turn please')

    const seen: Record<string, unknown>[] = []
    const release = await waitFor(async () => {
      const line = JSON.parse(await w.nextLine(60_000)) as Record<string, unknown>
      seen.push(line)
      return line['reason'] === 'park_released' ? line : null
    }, 60_000)
    const a = await stateOf(A)
    expect(release).toMatchObject({bucket: a.bucket, event: 'transition', id: a.id, reason: 'park_released', session_id: A})
    expect(a.bucket).not.toBe('stashed')
    // B went working, then to rest, before A's release line.
    const bLines = seen.filter((l) => l['session_id'] === B)
    expect(bLines.some((l) => l['to'] === 'working')).toBe(true)
    expect(bLines.at(-1)).toMatchObject({from: 'working'})
    expect(seen.indexOf(release)).toBeGreaterThan(seen.indexOf(bLines.at(-1)!))

    // explain keeps the note and says how the park ended.
    const explain = json<{park: {note: string; ended: string; until: string}}>(
      await runCast(['explain', A.slice(0, 8), '--json'], {env: h.env}),
    )
    expect(explain.park).toMatchObject({ended: 'ready', note: 'look again once B is through'})
  }, 120_000)

  it('refuses a park on itself, in a cycle, and on a killed session: exit 2, one line, nothing changed', async () => {
    await agent(A)
    await agent(B)
    await agent(C)
    await waitFor(async () => (await stateOf(C)).state !== 'working')

    const self = await runCast(['stash', A.slice(0, 8), '--until-ready', A.slice(0, 8)], {env: h.env})
    expect(self.code).toBe(2)
    expect(self.stderr.trim().split('\n')).toHaveLength(1)
    expect(self.stderr).toMatch(/itself/)

    expect((await runCast(['stash', A.slice(0, 8), '--until-ready', B.slice(0, 8)], {env: h.env})).code).toBe(0)
    const cycle = await runCast(['stash', B.slice(0, 8), '--until-ready', A.slice(0, 8)], {env: h.env})
    expect(cycle.code).toBe(2)
    expect(cycle.stderr).toMatch(/cycle/)
    expect((await stateOf(B)).bucket).not.toBe('stashed')

    expect((await runCast(['kill', C.slice(0, 8)], {env: h.env})).code).toBe(0)
    const killed = await runCast(['stash', B.slice(0, 8), '--until-ready', C.slice(0, 8)], {env: h.env})
    expect(killed.code).toBe(2)
    expect(killed.stderr).toMatch(/killed/)
  }, 120_000)
})
