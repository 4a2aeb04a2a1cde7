/**
 * The error a command raises on purpose, in a module of its own so the code paths that run
 * without oclif (bin/run.js's fast paths, the config, the background pass) can throw it without
 * loading oclif. src/lib/cli/base-command.ts re-exports it.
 */

/** Errors a command raises on purpose: a one-line message and an exit code from EXIT. */
export class CastError extends Error {
  override name = 'CastError'
  constructor(
    message: string,
    readonly exit: number,
    readonly suggestions: string[] = [],
  ) {
    super(message)
  }
}
