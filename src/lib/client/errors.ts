/**
 * The library's one error (src/lib/client/index.ts): what the CLI would have said, with the exit
 * code it would have exited with (src/lib/base/exit-codes.ts) and that code's name.
 */
import {CastError as CliError} from '../base/cast-error.js'
import {EXIT} from '../base/exit-codes.js'

/** The names of the exit codes: OK, FAILURE, USAGE, NOT_FOUND, AMBIGUOUS, REFUSED, TIMEOUT. */
export type ExitName = keyof typeof EXIT

const NAMES = new Map<number, ExitName>(Object.entries(EXIT).map(([k, v]) => [v, k as ExitName]))

/** The exit code's name; FAILURE for a number not in the table. */
export function exitName(exit: number): ExitName {
  return NAMES.get(exit) ?? 'FAILURE'
}

/** Every refusal and failure the library throws: `code` is the exit code's name, `exit` its number. */
export class CastError extends CliError {
  override name = 'CastError'
  readonly code: ExitName
  constructor(message: string, exit: number, suggestions: string[] = []) {
    super(message, exit, suggestions)
    this.code = exitName(exit)
  }
}

/** Whatever a call threw, as the library's CastError (a command's refusal keeps its code; anything else is FAILURE). */
export function toCastError(error: unknown): CastError {
  if (error instanceof CastError) return error
  if (error instanceof CliError) return new CastError(error.message, error.exit, error.suggestions)
  const exit = (error as {exit?: unknown})?.exit
  const message = error instanceof Error ? error.message : String(error)
  return new CastError(message, typeof exit === 'number' ? exit : EXIT.FAILURE)
}

/** Run `f`, throwing only the library's CastError. */
export async function guarded<T>(f: () => T | Promise<T>): Promise<T> {
  try {
    return await f()
  } catch (error) {
    throw toCastError(error)
  }
}
