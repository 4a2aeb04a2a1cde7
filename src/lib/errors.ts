/**
 * The one error envelope scripts read under `--json` (DESIGN §6.1, README "JSON shapes"):
 * `{"error":{"code","exit_code","message","suggestions"}}` and nothing else, whatever failed —
 * a cast error, an oclif parse error (a bad flag, a missing argument) or an unexpected throw.
 * `code` names the kind; `exit_code` is the process exit code from EXIT.
 */
import {EXIT} from './exit-codes.js'
import {visible} from './sanitize.js'

export const ERROR_KINDS = ['usage', 'not_found', 'ambiguous', 'refused', 'timeout', 'failure'] as const
export type ErrorKind = (typeof ERROR_KINDS)[number]

export function errorKind(exit: number): ErrorKind {
  switch (exit) {
    case EXIT.USAGE: {
      return 'usage'
    }

    case EXIT.NOT_FOUND: {
      return 'not_found'
    }

    case EXIT.AMBIGUOUS: {
      return 'ambiguous'
    }

    case EXIT.REFUSED: {
      return 'refused'
    }

    case EXIT.TIMEOUT: {
      return 'timeout'
    }

    default: {
      return 'failure'
    }
  }
}

export interface ErrorEnvelope {
  error: {code: ErrorKind; exit_code: number; message: string; suggestions: string[]}
}

export function errorEnvelope(message: string, exit: number, suggestions: readonly string[] = []): ErrorEnvelope {
  return {error: {code: errorKind(exit), exit_code: exit, message, suggestions: [...suggestions]}}
}

/** oclif's own errors that are the user's typing, not a failure: exit 2. */
const PARSE_ERRORS = new Set(['CLIError', 'FailedFlagValidationError', 'NonExistentFlagsError', 'RequiredArgsError', 'UnexpectedArgsError', 'ArgInvalidOptionError', 'FlagInvalidOptionError'])

export function isParseError(err: Error & {parse?: unknown}): boolean {
  if (err.parse !== undefined) return true
  if (PARSE_ERRORS.has(err.constructor?.name) && err.constructor?.name !== 'CLIError') return true
  return /^(Expected|Unexpected argument|Nonexistent flag|Missing|The following error|Parsing|--[\w-]+=? ?.* (?:cannot also be provided|must also be provided)|Only one of)/.test(err.message)
}

/**
 * One or a few lines for a person, from an oclif parse error: its first lines without the
 * "See more help with --help" tail and without oclif's ANSI colour or its "›" gutter.
 */
export function parseErrorMessage(err: Error): string {
  const text = stripAnsi(err.message)
    .split('\n')
    .map((l) => l.replace(/^\s*›\s?/, '').trimEnd())
    .filter((l) => l.trim() !== '' && !/^See more help with --help$/.test(l.trim()))
  return (
    text
      .join(' ')
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/^Parsing (--[\w-]+) /, '$1: ') || 'Invalid arguments.'
  )
}

export function stripAnsi(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\u001B\[[0-?]*[ -/]*[@-~]/g, '')
}

/** A human error line on stderr: control characters from users or agents shown, not obeyed. */
export function humanError(message: string, suggestions: readonly string[] = []): string {
  return [`cast: ${visible(message)}`, ...suggestions.map((s) => `  ${visible(s)}`)].join('\n') + '\n'
}
