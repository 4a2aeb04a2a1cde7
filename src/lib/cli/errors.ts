/**
 * cast's one error module: the exit-code table (re-exported from
 * exit-codes.ts, where docs/contract.md §6 keeps it), the errors commands raise on purpose, how any error
 * a command meets is classified (by its class, never by matching English text), and the two ways
 * it is printed: the one envelope scripts read under `--json` (docs/contract.md §6.1, README "JSON
 * shapes"), `{"error":{"code","exit_code","message","suggestions"}}` and nothing else, whatever
 * failed, or one human line on stderr.
 */
import {Errors} from '@oclif/core'
import fs from 'node:fs'

import {diskFull, noSpaceMessage} from '../../core/store/disk.js'
import {UsageError} from '../home/env.js'
import {CastError} from '../base/cast-error.js'
import {stripAnsi} from '../base/ansi.js'
import {EXIT} from '../base/exit-codes.js'
import {type ParseContext, parseSentence} from './parse-words.js'
import {visible} from '../../core/model/sanitize.js'

export {EXIT, type ExitCode} from '../base/exit-codes.js'

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

/** Errors a command raises on purpose: a one-line message and an exit code from EXIT. */
// CastError lives in its own module (no oclif), so code that runs without oclif can throw it.
export {CastError} from '../base/cast-error.js'

/**
 * A flag value that does not parse (src/lib/cli/time-flags.ts): exit 2 with its own one line.
 * oclif rewrites the message of whatever a flag's parse throws ("Parsing --for …"); `line`
 * keeps the one the user should read.
 */
export class FlagValueError extends CastError {
  override name = 'FlagValueError'
  readonly line: string
  constructor(message: string) {
    super(message, EXIT.USAGE)
    this.line = message
  }
}

/**
 * Whatever went wrong while oclif parsed the command line (BaseCommand.parse): a bad flag, a
 * bad value, a missing or extra argument, a flag constraint. It is the user's typing: exit 2,
 * with a pointer to the command's help.
 */
export class ParseUsageError extends CastError {
  override name = 'ParseUsageError'
}

/**
 * The usage error for something thrown while parsing the command line, by its class: cast's own
 * errors keep their message and code (a FlagValueError its line, before oclif's rewrite); an
 * oclif parser error (CLIParseError and its subclasses, a CLIError from the parser or a builtin
 * flag) and anything a flag's parse function threw become a ParseUsageError.
 */
export function parseFailure(err: unknown, commandId: string | undefined, flags: ParseContext['flags'] = {}): CastError {
  if (err instanceof FlagValueError) return new CastError(err.line, EXIT.USAGE, err.suggestions)
  if (err instanceof CastError) return err
  const said = parseSentence(err, {commandId, flags})
  if (said) return new ParseUsageError(said.message, EXIT.USAGE, [...said.suggestions, helpPointer(commandId)])
  const message = err instanceof Error ? parseErrorMessage(err) : String(err)
  return new ParseUsageError(message, EXIT.USAGE, [helpPointer(commandId)])
}

function helpPointer(commandId: string | undefined): string {
  const words = (commandId ?? '').replaceAll(':', ' ').trim()
  return words === '' ? 'See: cast --help' : `See: cast ${words} --help`
}

/** What BaseCommand.catch does with an error: report it, or end quietly with an exit code. */
export type Classified =
  | {
      readonly kind: 'report'
      readonly exit: number
      readonly message: string
      readonly suggestions: readonly string[]
      /** Not raised on purpose (a bug, an unexpected throw): CAST_DEBUG shows its stack. */
      readonly unexpected?: boolean
    }
  | {readonly kind: 'exit'; readonly exit: number}

type OclifError = Error & {code?: unknown; exitCode?: number; oclif?: {exit?: false | number}}

/** How an error a command met is reported, by its class (the store's faults first: one line naming CAST_HOME). */
export function classifyError(error: unknown, home: string): Classified {
  const err: OclifError = error instanceof Error ? error : new Error(String(error))
  const fault = storeFault(err, home)
  if (fault) return report(fault)
  if (err instanceof CastError) return report(err)
  if (err instanceof UsageError) return {exit: EXIT.USAGE, kind: 'report', message: err.message, suggestions: []}
  // this.exit(n): not an error to report.
  if (err instanceof Errors.ExitError) return {exit: typeof err.oclif.exit === 'number' ? err.oclif.exit : 0, kind: 'exit'}
  // A store written by a newer cast, or one that cannot be opened: their own line, exit 1.
  if (err.name === 'SchemaFromFutureError' || err.name === 'StoreOpenError')
    return {exit: EXIT.FAILURE, kind: 'report', message: err.message, suggestions: []}
  const exit = err.exitCode ?? (typeof err.oclif?.exit === 'number' ? err.oclif.exit : EXIT.FAILURE)
  return {exit, kind: 'report', message: parseErrorMessage(err), suggestions: [], unexpected: true}
}

function report(err: CastError): Classified {
  return {exit: err.exit, kind: 'report', message: err.message, suggestions: err.suggestions}
}

export interface ErrorEnvelope {
  error: {code: ErrorKind; exit_code: number; message: string; suggestions: string[]}
}

export function errorEnvelope(message: string, exit: number, suggestions: readonly string[] = []): ErrorEnvelope {
  return {error: {code: errorKind(exit), exit_code: exit, message, suggestions: [...suggestions]}}
}

/**
 * One or a few lines for a person, from an oclif error: its first lines without the
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

export {stripAnsi} from '../base/ansi.js'

/** A human error line on stderr: control characters from users or agents shown, not obeyed. */
export function humanError(message: string, suggestions: readonly string[] = []): string {
  return [`cast: ${visible(message)}`, ...suggestions.map((s) => `  ${visible(s)}`)].join('\n') + '\n'
}

export function readOnlyHome(home: string, why: string): CastError {
  return new CastError(`CAST_HOME ${home} is read-only (${why}): nothing was changed.`, EXIT.FAILURE, [
    'Make it writable again, or set CAST_HOME to a writable folder.',
  ])
}

export function writable(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK)
    return true
  } catch (error) {
    return !['EROFS', 'EACCES', 'EPERM'].includes((error as NodeJS.ErrnoException).code ?? '')
  }
}

/**
 * A store that cannot be written (read-only, full, failing disk, damaged, locked too long)
 * becomes one line naming CAST_HOME and what to do, not a SqliteError with its stack. SQLite
 * rolled the transaction back: nothing half-written is left behind.
 */
export function storeFault(err: Error & {code?: unknown}, home: string): CastError | null {
  const code = typeof err.code === 'string' ? err.code : ''
  // File-system errors count only for files under CAST_HOME (a hook settings file is not ours to explain).
  const file = (err as {path?: unknown}).path
  const inHome = typeof file === 'string' && (file === home || file.startsWith(home + '/'))
  if (err.name !== 'SqliteError' && !(inHome && ['EROFS', 'ENOSPC', 'EDQUOT', 'EACCES', 'EPERM'].includes(code))) return null
  const why = err.message.replace(/\s+/g, ' ').trim()
  if (/^SQLITE_READONLY/.test(code) || code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return readOnlyHome(home, why)

  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT' || (/^SQLITE_IOERR/.test(code) && diskFull(home))) {
    return new CastError(noSpaceMessage(home, why), EXIT.FAILURE, ['Free some space and run the command again.'])
  }

  if (/^SQLITE_(BUSY|LOCKED)/.test(code)) {
    return new CastError(`The cast store in ${home} stayed locked by another process (${why}): nothing was changed.`, EXIT.FAILURE, [
      'Run the command again.',
    ])
  }

  if (/^SQLITE_(CORRUPT|NOTADB)/.test(code)) {
    return new CastError(`The cast store ${home}/cast.db is damaged (${why}).`, EXIT.FAILURE, [
      "Run: cast doctor --repair (copies what can be read, keeping cast's own records, into a new store and re-reads the agents' files).",
    ])
  }

  if (/^SQLITE_(IOERR|CANTOPEN)/.test(code)) {
    return new CastError(`The cast store in ${home} could not be read or written (${code}: ${why}).`, EXIT.FAILURE)
  }

  return null
}
