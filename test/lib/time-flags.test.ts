/**
 * Issue 12 point 2: duration and time flags parse in src/lib/cli/time-flags.ts and fail there with
 * one line (exit 2), whatever command carries them.
 */
import {Parser} from '@oclif/core'
import {afterEach, describe, expect, it} from 'vitest'

import {CastError, FlagValueError, parseFailure} from '../../src/lib/cli/errors.js'
import {EXIT} from '../../src/lib/base/exit-codes.js'
import {durationFlag, flagInput, parseDurationFlag, parseTimeFlag, timeFlag} from '../../src/lib/cli/time-flags.js'

const NOW = Date.parse('2026-12-01T12:00:00Z')

/** What a command sees: oclif's parse, and its failure as BaseCommand.parse turns it into a usage error. */
async function parse(argv: string[]): Promise<{flags: Record<string, unknown>; error: CastError | null}> {
  try {
    const r = await Parser.parse(argv, {
      flags: {
        every: durationFlag({min: 60_000, minText: '1m'}),
        for: durationFlag({min: 1}),
        grace: durationFlag({}),
        until: timeFlag({future: true}),
        when: timeFlag({}),
      },
    })
    return {error: null, flags: r.flags}
  } catch (error) {
    return {error: parseFailure(error, 'snooze'), flags: {}}
  }
}

describe('duration flags', () => {
  it('read units, and "0" as at once', () => {
    expect(parseDurationFlag('for', '90s')).toBe(90_000)
    expect(parseDurationFlag('for', '1h30m')).toBe(5_400_000)
    expect(parseDurationFlag('grace', '0')).toBe(0)
    expect(parseDurationFlag('grace', '500ms')).toBe(500)
  })

  it('refuse a bare number, words and what is under the minimum with the one documented line', () => {
    expect(() => parseDurationFlag('for', '15')).toThrow(new FlagValueError('--for "15" is not a duration: try 90s, 15m, 2h, 1h30m or 2d.'))
    expect(() => parseDurationFlag('for', 'soon')).toThrow('--for "soon" is not a duration')
    expect(() => parseDurationFlag('for', '0s', {min: 1})).toThrow('--for "0s" is not a duration')
    expect(() => parseDurationFlag('every', '30s', {min: 60_000, minText: '1m'})).toThrow('--every "30s" is too short: the shortest is 1m.')
    expect(parseDurationFlag('every', '1m', {min: 60_000, minText: '1m'})).toBe(60_000)
  })
})

describe('time flags', () => {
  it('read ISO 8601, epoch ms and words against now', () => {
    expect(parseTimeFlag('until', '2026-12-02T09:00:00Z', NOW)).toBe(Date.parse('2026-12-02T09:00:00Z'))
    expect(parseTimeFlag('until', String(NOW + 1000), NOW)).toBe(NOW + 1000)
    expect(parseTimeFlag('until', 'in 2h', NOW)).toBe(NOW + 7_200_000)
  })

  it('refuse nonsense, and with future a time that has passed', () => {
    expect(() => parseTimeFlag('until', 'whenever', NOW)).toThrow(
      '--until "whenever" is not a time: try "tomorrow 9am", "friday 3pm", "in 2 hours" or ISO 8601.',
    )
    expect(() => parseTimeFlag('until', '2026-11-30T09:00:00Z', NOW, {future: true})).toThrow(
      /^--until "2026-11-30T09:00:00Z" is (\d{4}-\d\d-\d\d )?\d\d:\d\d, already past\.$/,
    )
    expect(parseTimeFlag('when', '2026-11-30T09:00:00Z', NOW)).toBe(Date.parse('2026-11-30T09:00:00Z'))
  })
})

describe('through oclif', () => {
  afterEach(() => {
    delete process.env.CAST_NOW
  })

  it('a flag value is milliseconds; a time reads the command clock (CAST_NOW)', async () => {
    process.env.CAST_NOW = '2026-12-01T12:00:00Z'
    const r = await parse(['--for', '2h', '--until', 'in 30m', '--grace', '0'])
    expect(r.error).toBeNull()
    expect(r.flags).toMatchObject({for: 7_200_000, grace: 0, until: NOW + 1_800_000})
  })

  it("a bad value fails with its own line and exit 2, not oclif's rewritten message", async () => {
    const {error} = await parse(['--for', '15'])
    expect(error).toBeInstanceOf(CastError)
    expect(error!.exit).toBe(EXIT.USAGE)
    expect(error!.message).toBe('--for "15" is not a duration: try 90s, 15m, 2h, 1h30m or 2d.')
    expect(error!.suggestions).toEqual([])
    process.env.CAST_NOW = '2026-12-01T12:00:00Z'
    expect((await parse(['--until', 'yesterday 9am'])).error!.message).toMatch(/^--until "yesterday 9am" is .*, already past\.$/)
  })

  it('a bad CAST_NOW is a usage error of the flag that reads it', async () => {
    process.env.CAST_NOW = 'teatime'
    const {error} = await parse(['--until', 'in 2h'])
    expect(error!.exit).toBe(EXIT.USAGE)
    expect(error!.message).toContain('CAST_NOW="teatime"')
  })

  it('flagInput gives the text as typed, for a human line', async () => {
    const r = await Parser.parse(['--every', '1h30m'], {flags: {every: durationFlag({})}})
    expect(r.flags.every).toBe(5_400_000)
    expect(flagInput(r.raw, 'every')).toBe('1h30m')
    expect(flagInput(r.raw, 'for')).toBeUndefined()
  })
})
