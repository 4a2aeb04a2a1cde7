/**
 * The live ingester misses nothing (issue 11 point 4): a write that lands inside the file
 * watcher's coalescing window (chokidar drops a second `change` for a path within 50 ms of the
 * first) is still read, and a complete last line that never got its newline is read once the
 * file has been quiet for a few seconds, while a line still being written waits.
 */
import fs from 'node:fs'
import path from 'node:path'
import {afterAll, afterEach, beforeEach, describe, expect, it} from 'vitest'

import {claudeLines, claudeTranscriptPath, makeHome, type TempHome, waitForWatcher, writeFile} from '../helpers/cli.js'
import {killChildren, random, SEED, sleep, spawnCast, withDb} from './helpers.js'

const SID = 'a1550000-0000-4000-8000-000000000001'

function messagesOf(castHome: string): number | null {
  try {
    return withDb(castHome, (db) => {
      const row = db.prepare(`SELECT facts FROM sessions WHERE native_id = ?`).get(SID) as {facts: string} | undefined
      return row ? ((JSON.parse(row.facts) as {messages?: number}).messages ?? null) : null
    })
  } catch {
    return null
  }
}

async function until<T>(fn: () => T, ok: (v: T) => boolean, timeoutMs: number): Promise<{value: T; ms: number; ok: boolean}> {
  const t0 = performance.now()
  let value = fn()
  while (!ok(value)) {
    if (performance.now() - t0 > timeoutMs) return {ms: performance.now() - t0, ok: false, value}
    await sleep(5)
    value = fn()
  }

  return {ms: performance.now() - t0, ok: true, value}
}

function userLine(i: number, at: Date): string {
  return JSON.stringify({
    cwd: '/w',
    isSidechain: false,
    message: {content: `prompt ${i}`, role: 'user'},
    parentUuid: i === 1 ? 'a1' : `ta${i - 1}`,
    sessionId: SID,
    timestamp: at.toISOString(),
    type: 'user',
    userType: 'external',
    uuid: `tu${i}`,
    version: '2.1.100',
  })
}

function assistantLine(i: number, at: Date): string {
  return JSON.stringify({
    cwd: '/w',
    isSidechain: false,
    message: {
      content: [{text: `answer ${i}`, type: 'text'}],
      id: `msg_t${i}`,
      model: 'claude-sonnet-4-5',
      role: 'assistant',
      stop_reason: 'end_turn',
      type: 'message',
    },
    parentUuid: `tu${i}`,
    sessionId: SID,
    timestamp: at.toISOString(),
    type: 'assistant',
    userType: 'external',
    uuid: `ta${i}`,
    version: '2.1.100',
  })
}

let h: TempHome
beforeEach(() => {
  h = makeHome()
})
afterEach(async () => {
  await killChildren()
  h.cleanup()
})
afterAll(killChildren)

describe('live ingester: misses nothing', () => {
  it('a write 20-50 ms after the previous one to the same file is always read', async () => {
    const r = random(SEED)
    const file = claudeTranscriptPath(h.home, '/w', SID)
    writeFile(file, claudeLines({at: new Date(Date.now() - 60_000), cwd: '/w', prompt: 'start', sessionId: SID}))
    const watch = spawnCast(['sessions', '-w', '--json'], h.env)
    await waitForWatcher(h.castHome)
    expect(
      (
        await until(
          () => messagesOf(h.castHome),
          (m) => m === 2,
          20_000,
        )
      ).ok,
    ).toBe(true)
    let messages = 2
    const latencies: number[] = []
    const missed: number[] = []
    for (let i = 1; i <= 25; i++) {
      fs.appendFileSync(file, userLine(i, new Date()) + '\n')
      messages++
      // The first write is seen on its own (so the watcher's window is open), then the second lands inside it.
      const first = await until(
        () => messagesOf(h.castHome),
        (m) => m === messages,
        3000,
      )
      if (!first.ok) missed.push(i - 0.5)
      if (first.ok) latencies.push(first.ms)
      await sleep(r.int(20, 50))
      fs.appendFileSync(file, assistantLine(i, new Date()) + '\n')
      messages++
      const seen = await until(
        () => messagesOf(h.castHome),
        (m) => m === messages,
        3000,
      )
      if (seen.ok) latencies.push(seen.ms)
      else missed.push(i)
      if (missed.length >= 3) break
    }

    latencies.sort((a, b) => a - b)
    console.log(
      `[figure] writes 20-50 ms after the previous one: read in p50 ${latencies[Math.floor(latencies.length / 2)]?.toFixed(0)} ms, max ${latencies.at(-1)?.toFixed(0)} ms over ${latencies.length}; missed ${missed.length}`,
    )
    expect(missed).toEqual([])
    watch.kill('SIGTERM')
    await watch.done
  }, 120_000)

  it('a complete last line without its newline is read once the file is quiet; a line being written waits', async () => {
    const file = claudeTranscriptPath(h.home, '/w', SID)
    writeFile(file, claudeLines({at: new Date(Date.now() - 60_000), cwd: '/w', prompt: 'start', sessionId: SID}))
    const watch = spawnCast(['sessions', '-w', '--json'], h.env)
    await waitForWatcher(h.castHome)
    expect(
      (
        await until(
          () => messagesOf(h.castHome),
          (m) => m === 2,
          20_000,
        )
      ).ok,
    ).toBe(true)
    // Half a line: never read, however long it stays.
    const line = userLine(1, new Date())
    fs.appendFileSync(file, line.slice(0, 40))
    await sleep(6000)
    expect(messagesOf(h.castHome)).toBe(2)
    // The rest of it, still without a newline (as Claude Code leaves its last line): read once quiet.
    const t0 = performance.now()
    fs.appendFileSync(file, line.slice(40))
    const seen = await until(
      () => messagesOf(h.castHome),
      (m) => m === 3,
      15_000,
    )
    console.log(`[figure] a last line without a newline: read ${(performance.now() - t0).toFixed(0)} ms after it was written`)
    expect(seen.value).toBe(3)
    // The newline arriving later adds nothing; the next line is read as usual.
    fs.appendFileSync(file, '\n' + assistantLine(1, new Date()) + '\n')
    expect(
      (
        await until(
          () => messagesOf(h.castHome),
          (m) => m === 4,
          5000,
        )
      ).value,
    ).toBe(4)
    await sleep(300)
    expect(messagesOf(h.castHome)).toBe(4)
    watch.kill('SIGTERM')
    await watch.done
    expect(fs.existsSync(path.dirname(file))).toBe(true)
  }, 60_000)
})
