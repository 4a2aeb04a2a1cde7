import {describe, expect, it} from 'vitest'

import {formatAge, parseDuration, parseTime} from '../../../src/core/model/durations.js'
import {HOUR, MIN, NOW, SEC} from './helpers.js'

const DAY = 24 * HOUR

/** Local wall-clock time on the day `days` after NOW's local day (chrono reads the machine's zone). */
function localAt(days: number, hours: number, minutes = 0): number {
  const date = new Date(NOW)
  date.setDate(date.getDate() + days)
  date.setHours(hours, minutes, 0, 0)
  return date.getTime()
}

describe('parseDuration', () => {
  it.each`
    text            | ms
    ${'90s'}        | ${90 * SEC}
    ${'15m'}        | ${15 * MIN}
    ${'2h'}         | ${2 * HOUR}
    ${'1d'}         | ${DAY}
    ${'1h30m'}      | ${90 * MIN}
    ${'1h 30m'}     | ${90 * MIN}
    ${' 2 hours '}  | ${2 * HOUR}
    ${'10 minutes'} | ${10 * MIN}
    ${'1.5h'}       | ${90 * MIN}
    ${'1w'}         | ${7 * DAY}
    ${'0s'}         | ${0}
    ${'15'}         | ${null}
    ${'-5m'}        | ${null}
    ${'abc'}        | ${null}
    ${'5 bananas'}  | ${null}
    ${'xyz 5m'}     | ${null}
    ${'5m later'}   | ${null}
    ${'in 2 hours'} | ${null}
    ${''}           | ${null}
  `('"$text" -> $ms', ({ms, text}) => {
    expect(parseDuration(text)).toBe(ms)
  })
})

describe('parseTime', () => {
  it.each`
    text                           | expected
    ${'1780000000000'}             | ${1_780_000_000_000}
    ${'2026-11-29T21:31:00.000Z'}  | ${NOW}
    ${'2026-11-29T22:31:00+01:00'} | ${NOW}
    ${'2026-12-01'}                | ${new Date(2026, 11, 1).getTime()}
    ${'in 2 hours'}                | ${NOW + 2 * HOUR}
    ${'in 30 minutes'}             | ${NOW + 30 * MIN}
    ${'in 90s'}                    | ${NOW + 90 * SEC}
    ${'in 1h30m'}                  | ${NOW + 90 * MIN}
    ${'tomorrow 9am'}              | ${localAt(1, 9)}
    ${'tomorrow at 17:30'}         | ${localAt(1, 17, 30)}
    ${'garbage'}                   | ${null}
    ${''}                          | ${null}
    ${'2026-13-45T99:00'}          | ${null}
  `('"$text"', ({expected, text}) => {
    expect(parseTime(text, NOW)).toBe(expected)
  })

  it('reads a bare time of day forward from now', () => {
    const at = parseTime('9am', NOW)

    expect(at).not.toBeNull()
    expect(at).toBeGreaterThan(NOW)
    expect(at! - NOW).toBeLessThanOrEqual(DAY)
    expect(new Date(at!).getHours()).toBe(9)
  })

  it('uses now, not the clock', () => {
    expect(parseTime('in 1 hour', 0)).toBe(HOUR)
  })
})

describe('formatAge', () => {
  it.each`
    ms                     | text
    ${-5 * SEC}            | ${'just now'}
    ${0}                   | ${'just now'}
    ${MIN - 1}             | ${'just now'}
    ${MIN}                 | ${'1 min ago'}
    ${49 * MIN}            | ${'49 min ago'}
    ${HOUR - 1}            | ${'59 min ago'}
    ${HOUR}                | ${'1 hour ago'}
    ${5 * HOUR + 59 * MIN} | ${'5 hours ago'}
    ${DAY - 1}             | ${'23 hours ago'}
    ${DAY}                 | ${'1 day ago'}
    ${3 * DAY + HOUR}      | ${'3 days ago'}
    ${400 * DAY}           | ${'400 days ago'}
  `('$ms ms -> "$text"', ({ms, text}) => {
    expect(formatAge(ms)).toBe(text)
  })
})
