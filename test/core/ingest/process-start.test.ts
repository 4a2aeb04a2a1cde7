/**
 * A claim names a pid and the time its process started. The kernel's start time and the recorded
 * one differ by how long the agent took to load before writing it (seconds, more on a loaded
 * machine), never the other way round: a process that started after the recorded time is
 * another one that reuses the pid.
 */
import {describe, expect, it} from 'vitest'

import {isSameProcessAlive, processStartTime} from '../../../src/core/ingest/process-table.js'

describe('isSameProcessAlive', () => {
  const actual = processStartTime(process.pid)

  it.skipIf(actual === null)('the same process: its start time, or one recorded while it loaded (up to two minutes later)', () => {
    expect(isSameProcessAlive(process.pid, actual!)).toBe(true)
    expect(isSameProcessAlive(process.pid, actual! + 15_000)).toBe(true)
    expect(isSameProcessAlive(process.pid, actual! + 110_000)).toBe(true)
  })

  it.skipIf(actual === null)(
    'another process on a reused pid started after the recorded time; a record far later is not this start',
    () => {
      expect(isSameProcessAlive(process.pid, actual! - 15_000)).toBe(false)
      expect(isSameProcessAlive(process.pid, actual! + 10 * 60_000)).toBe(false)
    },
  )

  it('no start time, pid 1, or a pid that is not running is not proof of life', () => {
    expect(isSameProcessAlive(process.pid, null)).toBe(false)
    expect(isSameProcessAlive(1, actual ?? 0)).toBe(false)
    expect(isSameProcessAlive(2 ** 22 + 17, Date.now())).toBe(false)
  })
})
