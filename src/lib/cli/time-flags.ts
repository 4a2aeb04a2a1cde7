/**
 * Duration and time flags: `--for 2h`, `--until "tomorrow 9am"`, `--timeout
 * 30s`, … parse here and nowhere else. A value that does not parse fails in one place, before the
 * command runs, with one line (exit 2; under --json the error envelope):
 *
 *   --for "15" is not a duration: try 90s, 15m, 2h, 1h30m or 2d.
 *   --until "whenever" is not a time: try "tomorrow 9am", "friday 3pm", "in 2 hours" or ISO 8601.
 *   --until "yesterday 9am" is 2026-11-30 09:00, already past.
 *
 * A duration flag's value is milliseconds; a time flag's is epoch milliseconds, read against the
 * command's clock (CAST_NOW, else the real one).
 */
import {humanTime} from '../base/time-format.js'
import {Flags} from '@oclif/core'

import {parseDuration, parseTime} from '../../core/model/durations.js'
import {clockFrom} from '../home/env.js'
import {FlagValueError} from './errors.js'

export const DURATION_EXAMPLES = '90s, 15m, 2h, 1h30m or 2d'
export const TIME_EXAMPLES = '"tomorrow 9am", "friday 3pm", "in 2 hours" or ISO 8601'

export type DurationOptions = {
  /** The shortest duration accepted, in ms (default 0: "0" means at once). */
  readonly min?: number
  /** How `min` reads in the error line ("1m"); without it, a duration under `min` is "not a duration". */
  readonly minText?: string
}

/** A duration (ms) from a flag's text, or the one-line usage error. */
export function parseDurationFlag(name: string, input: string, options: DurationOptions = {}): number {
  const min = options.min ?? 0
  const ms = input.trim() === '0' ? 0 : parseDuration(input)
  if (ms === null || (ms < min && options.minText === undefined)) {
    throw new FlagValueError(`--${name} "${input}" is not a duration: try ${DURATION_EXAMPLES}.`)
  }

  if (ms < min) throw new FlagValueError(`--${name} "${input}" is too short: the shortest is ${options.minText}.`)
  return ms
}

export type TimeOptions = {
  /** Refuse a time that is not after now. */
  readonly future?: boolean
}

/** A point in time (epoch ms) from a flag's text, read against `now`, or the one-line usage error. */
export function parseTimeFlag(name: string, input: string, now: number, options: TimeOptions = {}): number {
  const t = parseTime(input, now)
  if (t === null) throw new FlagValueError(`--${name} "${input}" is not a time: try ${TIME_EXAMPLES}.`)
  if (options.future && t <= now) throw new FlagValueError(`--${name} "${input}" is ${humanTime(t, now)}, already past.`)
  return t
}

/** The command's clock while its flags parse: CAST_NOW, else the real time. */
function parseClock(): number {
  try {
    return clockFrom(process.env)()
  } catch (error) {
    throw new FlagValueError((error as Error).message)
  }
}

/** `--for 2h`, `--timeout 30s`, `--grace 0`: a duration in ms. */
export const durationFlag = Flags.custom<number, DurationOptions>({
  parse: (input, _ctx, opts) => Promise.resolve(parseDurationFlag(opts.name, input, opts)),
})

/** `--until "tomorrow 9am"`, `--at 15:30`: a point in time, epoch ms. */
export const timeFlag = Flags.custom<number, TimeOptions>({
  parse: (input, _ctx, opts) => Promise.resolve(parseTimeFlag(opts.name, input, parseClock(), opts)),
})

/** The text a flag was given, as typed (`--every 1h30m`), for a human line; from oclif's raw tokens. */
export function flagInput(raw: readonly {type: string; input: string; flag?: string}[], name: string): string | undefined {
  return raw.findLast((t) => t.type === 'flag' && t.flag === name)?.input
}
